import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, cleanEnv } from "../support/cli.ts";

// docs/operations.md: one `serve` per SQLite file. Real CLI processes (test/support/cli.ts) in one
// folder, with the database given relative to it (`./data/chainwatch.db`), as an operator writes it.
// The database is a SQLite file whatever the suite runs on: the lock is SQLite's business.
const DB = "./data/chainwatch.db";
let dir: string;
let config: string;
const started: Subprocess[] = [];

async function run(args: string[]) {
  const proc = Bun.spawn([process.execPath, CLI, ...args, "--config", config], { cwd: dir, env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  started.push(proc);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Starts `serve` and resolves once it listens (its stdout is drained afterwards). */
async function startServe(): Promise<Subprocess<"ignore", "pipe", "pipe">> {
  const proc = Bun.spawn([process.execPath, CLI, "serve", "--config", config], { cwd: dir, env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  started.push(proc);
  const reader = proc.stdout.getReader();
  let log = "";
  while (!log.includes('"msg":"listening"')) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`serve exited: ${log}${await new Response(proc.stderr).text()}`);
    log += new TextDecoder().decode(value);
  }
  (async () => {
    for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) break;
  })();
  return proc;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-serve-lock-"));
  config = join(dir, "chainwatch.toml");
  const lines = ["[server]", 'host = "127.0.0.1"', "port = 0", "[database]", `url = "sqlite://${DB}"`, "[secrets]", 'master_key_file = "./data/master.key"', ""];
  writeFileSync(config, lines.join("\n"));
});

afterAll(async () => {
  for (const p of started) {
    p.kill("SIGKILL");
    await p.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("one serve per SQLite file", () => {
  let first: Subprocess<"ignore", "pipe", "pipe">;

  test("a second serve on the same file exits 1 naming the first one's pid, and the first keeps serving", async () => {
    first = await startServe();
    const second = await run(["serve"]);
    expect(second).toEqual({ code: 1, stdout: "", stderr: `chainwatch: database ${DB} is in use by another chainwatch serve (pid ${first.pid})\n` });
    expect(first.exitCode).toBeNull();
    expect(readFileSync(join(dir, `${DB}.lock`), "utf8")).toBe(`${first.pid}\n`);
  }, 30_000);

  test("CLI commands still write the database while serve runs; restore still refuses it", async () => {
    const created = await run(["accounts", "create", "shop", "--credits", "7", "--json"]);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ name: "shop", credits: 7 });
    expect((await run(["accounts", "credit", "shop", "--add", "3", "--json"])).code).toBe(0);
    expect((await run(["backup", "./copy.db"])).code).toBe(0);
    const restore = await run(["restore", "./copy.db"]);
    expect(restore.code).toBe(1);
    expect(restore.stderr).toContain(`the database ${DB} is in use`);
  }, 30_000);

  test("once the first is killed with SIGKILL, a new serve starts on the file and gives back what the first set aside", async () => {
    first.kill("SIGKILL");
    await first.exited;
    // Credits the killed daemon had set aside for /rpc calls (docs/rpc.md), its lease still running.
    const shop = JSON.parse((await run(["accounts", "show", "shop", "--json"])).stdout);
    const db = new Database(join(dir, DB));
    db.run("insert into credit_leases (holder, account_id, credits, lease_until) values (?, ?, ?, ?)", [`pid ${first.pid}`, shop.account_id, 5, Date.now() + 600_000]);
    db.close();
    const next = await startServe();
    expect(readFileSync(join(dir, `${DB}.lock`), "utf8")).toBe(`${next.pid}\n`);
    // Alone on the file, it knows the lease is a dead daemon's and gives it back at start, not after the lease.
    const check = new Database(join(dir, DB), { readonly: true });
    expect(check.query("select count(*) as n from credit_leases").get()).toEqual({ n: 0 });
    check.close();
    const shown = await run(["accounts", "show", "shop", "--json"]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ name: "shop", credits: 10 });
    // A clean stop leaves the lock file empty: no pid outlives its lock.
    next.kill("SIGTERM");
    expect(await next.exited).toBe(0);
    expect(readFileSync(join(dir, `${DB}.lock`), "utf8")).toBe("");
  }, 30_000);
});
