import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { linkSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { flockHolderPid, tryLockFile } from "../../src/lib/file-lock.ts";

// flock locks belong to an open file, so two opens in one process exclude each other as two
// processes would (serve-lock.test.ts runs the real processes).
let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "chainwatch-flock-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function held(path: string) {
  const attempt = tryLockFile(path);
  if (attempt.ok) {
    attempt.lock.release();
    throw new Error(`${path} was not locked`);
  }
  if (attempt.code !== "LOCK_HELD") throw new Error(attempt.error);
  return attempt;
}

describe("tryLockFile", () => {
  test("creates the file empty with mode 0600, refuses a second lock naming this process and the path, and allows one after release", () => {
    const path = join(dir, "x.db");
    const first = tryLockFile(path);
    if (!first.ok) throw new Error("first lock refused");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(path).size).toBe(0);
    expect(held(path)).toEqual({ ok: false, code: "LOCK_HELD", holder: { pid: process.pid, path } });
    first.lock.release();
    const again = tryLockFile(path);
    expect(again.ok).toBe(true);
    if (again.ok) again.lock.release();
  });

  test("the lock is the file's: a symlink, a hard link and a relative path to it all meet it", () => {
    const path = join(dir, "chainwatch.db");
    const first = tryLockFile(path);
    if (!first.ok) throw new Error("first lock refused");
    symlinkSync(path, join(dir, "sym.db"));
    linkSync(path, join(dir, "hard.db"));
    for (const other of [join(dir, "sym.db"), join(dir, "hard.db"), relative(process.cwd(), path)]) {
      expect(held(other).holder).toEqual({ pid: process.pid, path });
    }
    first.lock.release();
  });

  test("writes nothing into a SQLite database it locks, and SQLite reads and writes it meanwhile, here and in another process", async () => {
    const path = join(dir, "chainwatch.db");
    const setup = new Database(path);
    setup.run("PRAGMA journal_mode = WAL");
    setup.run("CREATE TABLE t (x INTEGER)");
    setup.run("INSERT INTO t VALUES (1)");
    setup.close();
    const before = readFileSync(path);
    const lock = tryLockFile(path);
    if (!lock.ok) throw new Error("lock refused");
    expect(readFileSync(path).equals(before)).toBe(true);
    // This process's own connection, opened after the lock as serve opens it.
    const db = new Database(path);
    db.run("PRAGMA busy_timeout = 5000");
    db.run("BEGIN IMMEDIATE");
    db.run("INSERT INTO t VALUES (2)");
    db.run("COMMIT");
    const script = `const { Database } = require("bun:sqlite"); const d = new Database(${JSON.stringify(path)}); d.run("PRAGMA busy_timeout = 5000"); d.run("BEGIN IMMEDIATE"); d.run("INSERT INTO t VALUES (3)"); d.run("COMMIT"); console.log(JSON.stringify(d.query("SELECT count(*) AS n FROM t").get())); d.close();`;
    const other = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(other.stdout).text(), new Response(other.stderr).text(), other.exited]);
    expect({ code, err, out }).toEqual({ code: 0, err: "", out: '{"n":3}\n' });
    expect(db.query("PRAGMA quick_check").get()).toEqual({ quick_check: "ok" });
    db.close();
    lock.lock.release();
  });

  test("a file that cannot be opened is an error, not a lock held by someone", () => {
    const attempt = tryLockFile(join(dir, "missing-folder", "x.db"));
    expect(attempt.ok).toBe(false);
    if (attempt.ok || attempt.code === "LOCK_HELD") throw new Error("expected an error");
    expect(attempt.error).toStartWith(`cannot open ${dir}/missing-folder/x.db: `);
  });
});

describe("flockHolderPid reads /proc/locks", () => {
  const table = [
    "1: POSIX  ADVISORY  WRITE 700 fe:00:2180026 1073741826 1073742335",
    "2: FLOCK  ADVISORY  WRITE 0 fe:00:99 0 EOF",
    "3: FLOCK  ADVISORY  WRITE 812 fe:00:2180026 0 EOF",
    "3: -> FLOCK  ADVISORY  WRITE 813 fe:00:2180026 0 EOF",
    "4: FLOCK  ADVISORY  WRITE 4242 103:12c:77 0 EOF",
    "5: OFDLCK ADVISORY  READ  -1 fe:00:55 0 EOF",
    "",
  ].join("\n");
  test.each([
    ["an flock on /dev/vda's file (fe:00)", 0xfe00, 2180026, 812],
    ["a device with a minor past 255 (259:300)", 1114924, 77, 4242],
    ["the same inode on another device", 0x801, 2180026, null],
    ["a POSIX lock only", 0xfe00, 55, null],
    ["a holder in another pid namespace (pid 0)", 0xfe00, 99, null],
  ])("%s", (_name, dev, ino, pid) => {
    expect(flockHolderPid(table, dev, ino)).toBe(pid);
  });
});
