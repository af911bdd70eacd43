import { dlopen, FFIType, read } from "bun:ffi";
import { closeSync, constants, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";
import { type Result, type StartupFailure, startupFailure } from "./error-codes.ts";

// Bun has no file-locking API of its own, so flock(2) comes from the C library through bun:ffi.
// flock rather than a pid file: the kernel drops the lock when the process ends however it ends
// (SIGKILL, a crash, the OOM killer), so a dead holder never blocks the next start, and no pid
// can be mistaken for a live process. Files are opened with O_CLOEXEC (Bun does that for every
// open), so a child process never inherits the lock.

const LOCK_EX = 2;
const LOCK_NB = 4;
const LOCK_UN = 8;
/** EWOULDBLOCK: another open file holds the lock (11 on Linux, 35 on macOS and the BSDs). */
const WOULD_BLOCK = process.platform === "linux" ? 11 : 35;

type Libc = { flock(fd: number, op: number): number; errno(): number };

/** The C library's file names to try, most likely first (glibc, musl, macOS). */
function libcNames(): string[] {
  if (process.platform === "darwin") return ["libSystem.B.dylib"];
  const musl = { x64: "x86_64", arm64: "aarch64" }[process.arch as string] ?? process.arch;
  return ["libc.so.6", `libc.musl-${musl}.so.1`];
}

let loaded: Libc | string | null = null;

/** flock and errno from the C library, or why they cannot be had; loaded once per process. */
function libc(): Libc | string {
  if (loaded !== null) return loaded;
  const errnoSymbol = process.platform === "darwin" ? "__error" : "__errno_location";
  const failures: string[] = [];
  for (const name of libcNames()) {
    try {
      const lib = dlopen(name, {
        flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
        [errnoSymbol]: { args: [], returns: FFIType.ptr },
      });
      const errnoAt = lib.symbols[errnoSymbol] as () => number | null;
      loaded = {
        flock: (fd, op) => lib.symbols.flock(fd, op) as number,
        errno: () => {
          const at = errnoAt();
          return at === null ? -1 : read.i32(at, 0);
        },
      };
      return loaded;
    } catch (e) {
      failures.push(`${name}: ${(e as Error).message}`);
    }
  }
  loaded = `file locks need flock(2) from the C library (${failures.join("; ")})`;
  return loaded;
}

/** A held lock; `release` unlocks and closes the file (the file itself stays: see tryLockFile). */
export type FileLock = { release(): void };

/** Another process holds the lock; `holder` is what it wrote into the file (may be empty). */
export type LockHeld = { ok: false; code: "LOCK_HELD"; holder: string };

/** The lock, or who holds it, or why it could not be tried (no flock, an unopenable file). */
export type LockAttempt = Result<{ lock: FileLock }, LockHeld | StartupFailure>;

/**
 * Takes an exclusive flock on `path` (created with mode 0600 when missing) without waiting, and
 * writes `note` into the file for whoever finds it held. The file is never deleted, not even on
 * release: another process may already have it open, and a lock on an unlinked file would lock
 * nothing the next process can see.
 */
export function tryLockFile(path: string, note: string): LockAttempt {
  const c = libc();
  if (typeof c === "string") return startupFailure(c);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
  } catch (e) {
    return startupFailure(`cannot open ${path}: ${(e as Error).message}`);
  }
  if (c.flock(fd, LOCK_EX | LOCK_NB) !== 0) {
    const errno = c.errno();
    closeSync(fd);
    if (errno !== WOULD_BLOCK) return startupFailure(`cannot lock ${path}: flock failed with errno ${errno}`);
    let holder = "";
    try {
      holder = readFileSync(path, "utf8").trim();
    } catch {}
    return { ok: false, code: "LOCK_HELD", holder };
  }
  ftruncateSync(fd, 0);
  writeSync(fd, `${note}\n`, 0);
  let released = false;
  return {
    ok: true,
    lock: {
      release() {
        if (released) return;
        released = true;
        // Emptied first, so a note never outlives its lock when the process ends cleanly.
        ftruncateSync(fd, 0);
        c.flock(fd, LOCK_UN);
        closeSync(fd);
      },
    },
  };
}
