import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tryLockFile } from "../../src/lib/file-lock.ts";

// flock locks belong to an open file, so two opens in one process exclude each other as two
// processes would (serve-lock.test.ts runs the real processes).
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-flock-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("tryLockFile", () => {
  test("creates the file 0600 with the note, refuses a second lock naming the note, and allows one after release", () => {
    const path = join(dir, "x.lock");
    const first = tryLockFile(path, "111");
    if (!first.ok) throw new Error("first lock refused");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, "utf8")).toBe("111\n");
    expect(tryLockFile(path, "222")).toEqual({ ok: false, code: "LOCK_HELD", holder: "111" });
    first.lock.release();
    expect(readFileSync(path, "utf8")).toBe("");
    const again = tryLockFile(path, "333");
    expect(again.ok).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("333\n");
    if (again.ok) again.lock.release();
  });

  test("a file that cannot be opened is an error, not a lock held by someone", () => {
    const attempt = tryLockFile(join(dir, "missing-folder", "x.lock"), "1");
    expect(attempt.ok).toBe(false);
    if (attempt.ok || attempt.code === "LOCK_HELD") throw new Error("expected an error");
    expect(attempt.error).toStartWith(`cannot open ${dir}/missing-folder/x.lock: `);
  });
});
