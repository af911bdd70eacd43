import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../../src/config/load.ts";
import { openContext } from "../../src/context.ts";
import { SEALED_COLUMNS } from "../../src/secrets/sealed-secrets.ts";
import { CLI, cleanEnv, startServe } from "../support/cli.ts";
import { testDatabaseUrl } from "../support/harness.ts";
import { freePort } from "../support/free-port.ts";

// docs/operations.md: a master key is made only for a database that holds no sealed secret, and
// only once the database has answered. Real CLI processes on the suite's database (a SQLite file,
// or a PostgreSQL database of its own), the key file given relative to the working folder.
let dir: string;
const started: Subprocess[] = [];

/** A config in `folder` for `url`, the key at ./data/master.key. */
function configIn(folder: string, url: string): string {
  const file = join(folder, "cw.toml");
  const lines = ["[server]", 'host = "127.0.0.1"', "port = 0", "[database]", `url = "${url}"`, "[secrets]", 'master_key_file = "./data/master.key"', ""];
  writeFileSync(file, lines.join("\n"));
  return file;
}

async function cli(args: string[], folder = dir, env = cleanEnv()) {
  const proc = Bun.spawn([process.execPath, CLI, ...args, "--config", join(folder, "cw.toml")], { cwd: folder, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  started.push(proc);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** A new folder under `dir`, its real path (the CLI names files by it). */
function folder(name: string): string {
  const f = join(dir, name);
  mkdirSync(f);
  return f;
}

const lostKey = (keyFile: string) =>
  `chainwatch: master key file ${keyFile} does not exist and CHAINWATCH_MASTER_KEY is not set, but the database holds secrets sealed under a master key: ` +
  `put this installation's key back there (mode 0600) or set CHAINWATCH_MASTER_KEY to it; it is the key you keep apart from the backups ` +
  `(docs/operations.md, "Backup and restore"). A new key would open none of them, so none was written\n`;

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "chainwatch-missing-key-")));
});

afterAll(async () => {
  for (const p of started) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  await Promise.all(started.map((p) => p.exited));
  rmSync(dir, { recursive: true, force: true });
});

describe("a missing master key", () => {
  let shop: string;
  let keyFile: string;
  let key: string;

  test("a new database: serve creates the key with mode 0600", async () => {
    shop = folder("shop");
    keyFile = join(shop, "data/master.key");
    configIn(shop, testDatabaseUrl(shop, { empty: true }));
    const serve = await startServe(join(shop, "cw.toml"), shop);
    started.push(serve.proc);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    key = readFileSync(keyFile, "utf8");
    expect(key).toMatch(/^[0-9a-f]{64}\n$/);
    serve.proc.kill("SIGTERM");
    expect(await serve.proc.exited).toBe(0);
  }, 30_000);

  test("a database holding sealed secrets: serve, migrate and other commands refuse, naming where the key belongs and how to restore it, and write no key", async () => {
    expect((await cli(["accounts", "create", "alice"], shop)).code).toBe(0);
    renameSync(keyFile, join(shop, "kept.key"));
    for (const command of [["serve"], ["migrate"], ["accounts", "list"], ["accounts", "list", "--create"]]) {
      expect({ command, ...(await cli(command, shop)) }).toEqual({ command, code: 1, stdout: "", stderr: lostKey(keyFile) });
      expect(existsSync(keyFile)).toBe(false);
    }
  }, 30_000);

  test("the key given by CHAINWATCH_MASTER_KEY, or put back, opens the database again, and is not replaced", async () => {
    const listed = await cli(["accounts", "list", "--json"], shop, cleanEnv({ CHAINWATCH_MASTER_KEY: key.trim() }));
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).accounts.map((a: { name: string }) => a.name)).toEqual(["alice"]);
    expect(existsSync(keyFile)).toBe(false);
    renameSync(join(shop, "kept.key"), keyFile);
    expect((await cli(["migrate"], shop)).code).toBe(0);
    expect(readFileSync(keyFile, "utf8")).toBe(key);
  }, 30_000);

  test("a migrated database with no sealed secret yet is new: migrate creates its key", async () => {
    const empty = folder("empty");
    configIn(empty, testDatabaseUrl(empty, { empty: true }));
    // Migrated under a key from the environment: tables, but no account and no key file.
    expect((await cli(["migrate"], empty, cleanEnv({ CHAINWATCH_MASTER_KEY: "ab".repeat(32) }))).code).toBe(0);
    expect(existsSync(join(empty, "data/master.key"))).toBe(false);
    const other = await cli(["accounts", "list"], empty);
    expect(other.stderr).toStartWith(`chainwatch: no master key at ${empty}/data/master.key (and $CHAINWATCH_MASTER_KEY is not set) (config ${empty}/cw.toml from --config); run \`chainwatch migrate\` to create it, or pass --create\n`);
    expect(existsSync(join(empty, "data/master.key"))).toBe(false);
    expect((await cli(["migrate"], empty)).code).toBe(0);
    expect(statSync(join(empty, "data/master.key")).mode & 0o777).toBe(0o600);
  }, 30_000);

  test("an unreachable PostgreSQL database: serve and migrate fail naming it, and write no key", async () => {
    // Below the kernel's ephemeral range: no other test's server or connection is handed it meanwhile.
    const port = freePort();
    const away = folder("away");
    configIn(away, `postgres://shop:hunter2@127.0.0.1:${port}/chainwatch`);
    for (const command of [["serve"], ["migrate"]]) {
      const r = await cli(command, away);
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: "" });
      expect(r.stderr).toStartWith(`chainwatch: cannot connect to the database at postgres://shop:***@127.0.0.1:${port}/chainwatch`);
      expect(existsSync(join(away, "data"))).toBe(false);
    }
  }, 30_000);
});

test("the sealed columns are every *_enc column of the migrated schema", async () => {
  const here = folder("schema");
  const cfg = parseConfig({ database: { url: testDatabaseUrl(here) }, secrets: { master_key_file: join(here, "master.key") } }, "test");
  if (!cfg.ok) throw new Error(cfg.error);
  const ctx = await openContext(cfg.config, { env: {} });
  try {
    const tables = await ctx.db.introspection.getTables();
    const sealed = tables.flatMap((t) => t.columns.filter((c) => c.name.endsWith("_enc")).map((c) => `${t.name}.${c.name}`));
    expect(sealed.sort()).toEqual(SEALED_COLUMNS.filter((c) => c.until === undefined).map((c) => `${c.table}.${c.column}`).sort());
  } finally {
    await ctx.db.destroy();
  }
});
