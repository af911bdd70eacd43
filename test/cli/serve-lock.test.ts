import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { Database } from "bun:sqlite";
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, cleanEnv, startServe as startServeIn } from "../support/cli.ts";

// docs/operations.md: one `serve` per SQLite file. Real CLI processes (test/support/cli.ts) in one
// folder, with the database given relative to it (`./data/chainwatch.db`), as an operator writes it.
// The database is a SQLite file whatever the suite runs on: the lock is SQLite's business. The lock
// is an flock on the database file itself, so other names of the file meet it too.
const DB = "./data/chainwatch.db";
let dir: string;
let config: string;
const started: Subprocess[] = [];

async function run(args: string[], configFile = config, cwd = dir) {
  const proc = Bun.spawn([process.execPath, CLI, ...args, "--config", configFile], { cwd, env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  started.push(proc);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Starts `serve` on the main config and resolves once it listens. */
async function startServe(): Promise<Subprocess> {
  const { proc } = await startServeIn(config, dir);
  started.push(proc);
  return proc;
}

/** A config in `dir` for the database at `dbUrlPath` (as written in the file), with the one master key. */
function configFor(name: string, dbUrlPath: string): string {
  const file = join(dir, name);
  const lines = ["[server]", 'host = "127.0.0.1"', "port = 0", "[database]", `url = "sqlite://${dbUrlPath}"`, "[secrets]", `master_key_file = "${join(dir, "data/master.key")}"`, ""];
  writeFileSync(file, lines.join("\n"));
  return file;
}

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "chainwatch-serve-lock-")));
  config = configFor("chainwatch.toml", DB);
});

afterAll(async () => {
  for (const p of started) {
    p.kill("SIGKILL");
    await p.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("one serve per SQLite file", () => {
  let first: Subprocess;

  test("a second serve on the same file exits 1 naming the first one's pid, and the first keeps serving", async () => {
    first = await startServe();
    const second = await run(["serve"]);
    expect(second).toEqual({ code: 1, stdout: "", stderr: `chainwatch: database ${DB} is in use by another chainwatch serve (pid ${first.pid})\n` });
    expect(first.exitCode).toBeNull();
  }, 30_000);

  test("a serve on a hard link, a symlink, another relative path or a symlinked folder of the same file is refused alike, naming the first one's pid and its path to it", async () => {
    linkSync(join(dir, DB), join(dir, "hard.db"));
    symlinkSync(join(dir, DB), join(dir, "sym.db"));
    const firstPath = join(dir, "data/chainwatch.db");
    for (const name of ["hard.db", "sym.db"]) {
      const other = await run(["serve"], configFor(`${name}.toml`, `./${name}`));
      expect(other).toEqual({ code: 1, stdout: "", stderr: `chainwatch: database ./${name} is in use by another chainwatch serve (pid ${first.pid}, which opened the same file as ${firstPath})\n` });
    }
    mkdirSync(join(dir, "elsewhere"));
    const relative = await run(["serve"], configFor("elsewhere/chainwatch.toml", "../data/chainwatch.db"), join(dir, "elsewhere"));
    expect(relative).toEqual({ code: 1, stdout: "", stderr: `chainwatch: database ../data/chainwatch.db is in use by another chainwatch serve (pid ${first.pid})\n` });
    // A symlinked folder leaves the file's own name: nothing more to say than the pid.
    symlinkSync(join(dir, "data"), join(dir, "linked"));
    const linked = await run(["serve"], configFor("linked.toml", "./linked/chainwatch.db"));
    expect(linked).toEqual({ code: 1, stdout: "", stderr: `chainwatch: database ./linked/chainwatch.db is in use by another chainwatch serve (pid ${first.pid})\n` });
    expect(first.exitCode).toBeNull();
    // Nothing of the refused daemons touched the file: no second WAL beside it, no damage.
    const check = new Database(join(dir, DB), { readonly: true });
    expect(check.query("PRAGMA quick_check").all()).toEqual([{ quick_check: "ok" }]);
    check.close();
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
    // Alone on the file, it knows the lease is a dead daemon's and gives it back at start, not after the lease.
    const check = new Database(join(dir, DB), { readonly: true });
    expect(check.query("select count(*) as n from credit_leases").get()).toEqual({ n: 0 });
    check.close();
    const shown = await run(["accounts", "show", "shop", "--json"]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ name: "shop", credits: 10 });
    next.kill("SIGTERM");
    expect(await next.exited).toBe(0);
    const after = new Database(join(dir, DB), { readonly: true });
    expect(after.query("PRAGMA quick_check").all()).toEqual([{ quick_check: "ok" }]);
    after.close();
  }, 30_000);
});
