import { dlopen, FFIType, read } from "bun:ffi";
import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { type Result, type StartupFailure, startupFailure } from "./error-codes.ts";

// Bun has no file-locking API of its own, so flock(2) comes from the C library through bun:ffi.
// flock rather than a pid file: the kernel drops the lock when the process ends however it ends
// (SIGKILL, a crash, the OOM killer), so a dead holder never blocks the next start, and no pid
// can be mistaken for a live process. A flock belongs to the file (its inode), not to the name it
// was opened by: a symlink, a hard link, another relative path or a bind mount of the same file
// all meet the same lock. Files are opened with O_CLOEXEC (Bun does that for every open), so a
// child process never inherits the lock.
//
// On Linux (and the BSDs) flock locks and the POSIX fcntl locks SQLite takes are separate: an
// flock held on a database file blocks no SQLite reader or writer, in this process or another.
// (Over NFS Linux emulates flock with fcntl locks and they would meet; SQLite's WAL mode does not
// work on a network file system anyway.)

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

/** A held lock; `release` unlocks and closes the file (the file itself stays). */
export type FileLock = { release(): void };

/** The process holding a lock, when the system says (Linux): its pid and the path it opened the file by. */
export type LockHolder = { pid: number; path: string | null };

/** Another process holds the lock; `holder` is null where the system does not say who. */
export type LockHeld = { ok: false; code: "LOCK_HELD"; holder: LockHolder | null };

/** The lock, or who holds it, or why it could not be tried (no flock, an unopenable file). */
export type LockAttempt = Result<{ lock: FileLock }, LockHeld | StartupFailure>;

/**
 * Takes an exclusive flock on the file at `path` (created empty with mode 0600 when missing)
 * without waiting. Nothing is written to the file, so it may be the SQLite database itself.
 *
 * On a database file, mind SQLite's POSIX locks: closing *any* descriptor of a file drops every
 * fcntl lock the process holds on it, SQLite's included. So lock before this process opens the
 * database, and release only after every connection to it is closed.
 */
export function tryLockFile(path: string): LockAttempt {
  const c = libc();
  if (typeof c === "string") return startupFailure(c);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_CREAT, 0o600);
  } catch (e) {
    return startupFailure(`cannot open ${path}: ${(e as Error).message}`);
  }
  if (c.flock(fd, LOCK_EX | LOCK_NB) !== 0) {
    const errno = c.errno();
    const { dev, ino } = fstatSync(fd);
    closeSync(fd);
    if (errno !== WOULD_BLOCK) return startupFailure(`cannot lock ${path}: flock failed with errno ${errno}`);
    return { ok: false, code: "LOCK_HELD", holder: lockHolder(dev, ino) };
  }
  let released = false;
  return {
    ok: true,
    lock: {
      release() {
        if (released) return;
        released = true;
        c.flock(fd, LOCK_UN);
        closeSync(fd);
      },
    },
  };
}

/** Who holds the flock on the file `dev`/`ino`, from Linux's /proc/locks; null elsewhere or when unseen. */
function lockHolder(dev: number, ino: number): LockHolder | null {
  let table: string;
  try {
    table = readFileSync("/proc/locks", "utf8");
  } catch {
    return null;
  }
  const pid = flockHolderPid(table, dev, ino);
  return pid === null ? null : { pid, path: pathOpenedBy(pid, dev, ino) };
}

/**
 * The pid of the exclusive flock on `dev`/`ino` in the text of /proc/locks, or null. A line reads
 * `3: FLOCK  ADVISORY  WRITE 1234 fe:01:2180026 0 EOF`: the device as the kernel's hex major:minor,
 * which `st_dev` encodes as major in bits 8–19 and minor in bits 0–7 and 20–31. A pid of 0 (a
 * holder outside this process's pid namespace) says nothing.
 */
export function flockHolderPid(procLocks: string, dev: number, ino: number): number | null {
  const major = Math.floor(dev / 256) % 4096;
  const minor = (dev % 256) + (Math.floor(dev / 1048576) % 4096) * 256;
  const file = `${major.toString(16).padStart(2, "0")}:${minor.toString(16).padStart(2, "0")}:${ino}`;
  for (const line of procLocks.split("\n")) {
    const m = /^\d+: FLOCK\s+ADVISORY\s+WRITE\s+(\d+)\s+(\S+)\s/.exec(line);
    if (m && m[2] === file && m[1] !== "0") return Number(m[1]);
  }
  return null;
}

/** The path by which process `pid` has the file `dev`/`ino` open, when this process may look (same user, Linux). */
function pathOpenedBy(pid: number, dev: number, ino: number): string | null {
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const link = `/proc/${pid}/fd/${fd}`;
      try {
        const s = statSync(link);
        if (s.dev === dev && s.ino === ino) return readlinkSync(link);
      } catch {}
    }
  } catch {}
  return null;
}
