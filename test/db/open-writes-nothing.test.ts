import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, writeToml } from "../delivery/fixtures.ts";
import { onPostgres, ownSqliteFile } from "../support/postgres-only.ts";

// Opening the SQLite file writes nothing to it: a command that only reads runs while the daemon
// holds the write lock (no wait for it), and leaves every byte of the file as it was.

let dir: string | undefined;
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(onPostgres)(ownSqliteFile("opening the SQLite file"), () => {
  test("a command that only reads runs while another connection holds the write lock, and changes no byte of the file", async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-open-"));
    const file = join(dir, "chainwatch.db");
    const config = writeToml(dir);
    expect((await runCli(["migrate", "--config", config])).code).toBe(0);
    expect((await runCli(["plans", "set", "basic", "--slots", "5", "--config", config])).code).toBe(0);
    const before = readFileSync(file);
    // The write lock held, as the daemon holds it through each write transaction: an open that
    // wrote would wait out its 5 s busy_timeout here and fail with "database is locked".
    const daemon = new Database(file);
    daemon.run("BEGIN IMMEDIATE");
    let listed: Awaited<ReturnType<typeof runCli>>;
    try {
      listed = await runCli(["plans", "list", "--json", "--config", config]);
    } finally {
      daemon.run("ROLLBACK");
      daemon.close();
    }
    // Its stderr says which database it opened; on a failure, also why.
    expect({ code: listed.code, stderr: listed.stderr }).toMatchObject({ code: 0 });
    expect((JSON.parse(listed.stdout) as { plans: { name: string }[] }).plans.map((p) => p.name)).toContain("basic");
    expect(Bun.hash(readFileSync(file))).toBe(Bun.hash(before));
  });
});
