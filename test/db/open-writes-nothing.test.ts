import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../cli/run.ts";
import { onPostgres, ownSqliteFile } from "../support/postgres-only.ts";

// Opening the SQLite file writes nothing to it: a command that only reads runs while the daemon
// holds the write lock (no wait for it), and leaves every byte of the file as it was.

const dir = mkdtempSync(join(tmpdir(), "chainwatch-open-"));
const file = join(dir, "chainwatch.db");
const config = join(dir, "chainwatch.toml");
writeFileSync(config, `[database]\nurl = "sqlite://${file}"\n[secrets]\nmaster_key_file = "${dir}/master.key"\n`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI in-process on the test file: its exit code and what it printed. */
async function cli(...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runCli([...argv, "--config", config], { stdout: { write: (t: string) => void (stdout += t) }, stderr: { write: (t: string) => void (stderr += t) }, env: {} });
  return { code, stdout, stderr };
}

describe.skipIf(onPostgres)(ownSqliteFile("opening the SQLite file"), () => {
  test("a command that only reads runs while another connection holds the write lock, and changes no byte of the file", async () => {
    expect((await cli("migrate")).code).toBe(0);
    expect((await cli("plans", "set", "basic", "--slots", "5")).code).toBe(0);
    const before = readFileSync(file);
    // The write lock held, as the daemon holds it through each write transaction: an open that
    // wrote would wait out its 5 s busy_timeout here and fail with "database is locked".
    const daemon = new Database(file);
    daemon.run("BEGIN IMMEDIATE");
    let listed: Awaited<ReturnType<typeof cli>>;
    try {
      listed = await cli("plans", "list", "--json");
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
