import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Migrator } from "kysely";
import { Webhook } from "standardwebhooks";
import { openContext, startDaemon } from "../../src/daemon.ts";
import { openDatabase } from "../../src/db/database.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { createSecretBox } from "../../src/secrets/secret-box.ts";
import { pgDumpCommand } from "../../src/ops/backup.ts";
import { type Credentials, onPostgres, signedHeaders, startTestDaemon, type TestClient, type TestDaemon, testConfig } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { runCli } from "../delivery/fixtures.ts";

// Each test starts several `chainwatch` processes; on a loaded machine that takes seconds.
setDefaultTimeout(30_000);


function tomlFor(dir: string): string {
  const file = join(dir, "chainwatch.toml");
  writeFileSync(file, `[database]\nurl = "sqlite://${dir}/chainwatch.db"\n[secrets]\nmaster_key_file = "${dir}/master.key"\n`);
  return file;
}

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
/** A JSON response body, for reading fields in assertions. */
const body = async (r: Response | Promise<Response>) => (await (await r).json()) as any;
const SENDER = "0x1111111111111111111111111111111111111111";
let height = 19_000_000;
/** One block paying each given address once. */
function block(to: string[]) {
  const h = height++;
  return {
    network: "eth",
    height: h,
    hash: `0x${h.toString(16)}`,
    parent_hash: `0x${(h - 1).toString(16)}`,
    transactions: to.map((addr, i) => ({ hash: `0x${h.toString(16)}${i.toString().padStart(4, "0")}`, from: SENDER, to: addr, value: "1000" })),
  };
}

// VACUUM INTO, file locks and file modes: SQLite's backup (PostgreSQL's is pg_dump, below).
describe.skipIf(onPostgres)("chainwatch backup and restore", () => {
  let source: TestDaemon;
  const clients: TestClient[] = [];
  const watched: string[] = [];
  const dirs: string[] = [];
  // Started in beforeAll: a skipped describe still runs its body, but never its afterAll.
  let failing: WebhookSink;

  beforeAll(async () => {
    failing = startWebhookSink();
    // The receiver answers 503 and a retry waits an hour: deliveries are pending when the backup runs.
    failing.respond(() => new Response("down", { status: 503 }));
    source = await startTestDaemon({ config: { delivery: { backoff_seconds: [3600] } } });
    for (let i = 0; i < 3; i++) {
      const c = await source.client({ credits: 1_000_000, slots: 20 });
      clients.push(c);
      expect((await c.request("PUT", "/v1/address-watch/webhook", { url: failing.url, enabled: true })).status).toBe(200);
      for (let j = 0; j < 4; j++) {
        const a = address(i * 100 + j + 1);
        watched.push(a);
        expect((await c.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address: a })).status).toBe(201);
      }
    }
    for (let k = 0; k < 5; k++) expect((await source.ingest(block(watched))).status).toBe(202);
  });

  afterAll(async () => {
    await source.stop();
    await failing.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const sourceDir = () => source.dir;

  function freshDir(): string {
    const d = mkdtempSync(join(tmpdir(), "chainwatch-restore-"));
    dirs.push(d);
    return d;
  }

  test("a backup taken under write load restores with every key, watch, event and pending delivery", async () => {
    const before = await Promise.all(
      clients.map(async (c) => ({
        watches: (await body(c.request("GET", "/v1/address-watch/addresses"))).addresses,
        events: (await body(c.request("GET", "/v1/address-watch/events?limit=1000"))).events.map((e: { id: string }) => e.id),
      })),
    );
    const pending = (await source.ctx.db.selectFrom("deliveries").select("id").where("status", "=", "pending").execute()).map((r) => r.id);
    expect(pending.length).toBeGreaterThanOrEqual(60);

    // Write load: blocks keep arriving through the daemon while the CLI copies the database.
    let writing = true;
    let written = 0;
    const load = (async () => {
      while (writing) {
        expect((await source.ingest(block(watched))).status).toBe(202);
        written++;
      }
    })();
    const backupFile = join(freshDir(), "nightly.db");
    const backedUp = await runCli(["backup", backupFile, "--config", tomlFor(source.dir), "--json"]);
    writing = false;
    await load;
    expect(backedUp.stderr).toBe("");
    expect(backedUp.code).toBe(0);
    const doc = JSON.parse(backedUp.stdout);
    expect(doc).toMatchObject({ ok: true, file: backupFile, master_key: join(source.dir, "master.key") });
    expect(doc.reminder).toContain("master key");
    expect(written).toBeGreaterThan(0);
    expect(statSync(backupFile).mode & 0o777).toBe(0o600);

    // The copy is one consistent moment: every wallet event has its delivery (same transaction).
    const copy = new Database(backupFile, { readonly: true });
    const orphans = copy
      .query("SELECT count(*) AS n FROM events e WHERE e.account_id <> '*' AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id)")
      .get() as { n: number };
    copy.close();
    expect(orphans.n).toBe(0);

    // A fresh machine: the backup and the master key, nothing else.
    const target = freshDir();
    copyFileSync(join(source.dir, "master.key"), join(target, "master.key"));
    const restored = await runCli(["restore", backupFile, "--config", tomlFor(target), "--json"]);
    expect(restored.stderr).toBe("");
    expect(restored.code).toBe(0);
    expect(JSON.parse(restored.stdout)).toEqual({ ok: true, database: join(target, "chainwatch.db"), previous: null });

    // Start on the restored directory; once the webhooks point at a live receiver, move two hours on
    // so the waiting deliveries are due.
    let offset = 0;
    const clock = { now: () => Date.now() + offset, monotonic: () => performance.now() };
    const config = testConfig(target, { delivery: { backoff_seconds: [3600] } });
    const ctx = await openContext(config, { clock, env: {} });
    // Counted before the daemon starts: once a webhook points at the live receiver, the rows the
    // source had not tried yet go out at once and are no longer pending.
    const stored = (await ctx.db.selectFrom("deliveries").select("id").where("status", "=", "pending").execute()).length;
    expect(stored).toBeGreaterThanOrEqual(pending.length);
    const daemon = await startDaemon(ctx);
    const sink = startWebhookSink();
    try {
      const call = (creds: Credentials, method: string, path: string, body?: unknown) => {
        const text = body === undefined ? "" : JSON.stringify(body);
        return fetch(`${daemon.url}${path}`, {
          method,
          body: body === undefined ? undefined : text,
          headers: { "Content-Type": "application/json", ...signedHeaders(creds, method, path.split("?")[0], text, Math.floor(clock.now() / 1000)) },
        });
      };
      for (const [i, c] of clients.entries()) {
        const account = await call(c, "GET", "/v1/account");
        expect(account.status).toBe(200);
        expect((await body(account)).account_id).toBe(c.accountId);
        expect((await body(call(c, "GET", "/v1/address-watch/addresses"))).addresses).toEqual(before[i].watches);
        const events = (await body(call(c, "GET", "/v1/address-watch/events?limit=1000"))).events.map((e: { id: string }) => e.id);
        expect(events.slice(0, before[i].events.length)).toEqual(before[i].events);
        const put = await call(c, "PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true });
        expect(put.status).toBe(200);
      }
      offset = 2 * 3600_000;
      daemon.deps.wakeDelivery();
      const received = await sink.waitFor(stored, 20_000);
      const ids = new Set(received.map((r) => r.headers["x-webhook-id"]));
      for (const id of pending) expect(ids.has(id)).toBe(true);
    } finally {
      await sink.stop();
      await daemon.stop();
    }
  });

  test("a backup holds every webhook endpoint, secrets sealed; restored, each signs with its own", async () => {
    const c = clients[0];
    const added = await body(c.request("POST", "/v1/webhooks/endpoints", { url: failing.url, description: "audit" }));
    const endpointsOf = (db: Database) => db.query("SELECT * FROM webhook_endpoints ORDER BY id").all();
    const source = new Database(join(sourceDir(), "chainwatch.db"), { readonly: true });
    const rows = endpointsOf(source);
    source.close();
    expect(rows.length).toBe(clients.length + 1);
    const backupFile = join(freshDir(), "endpoints.db");
    expect((await runCli(["backup", backupFile, "--config", tomlFor(sourceDir())])).code).toBe(0);
    const target = freshDir();
    copyFileSync(join(sourceDir(), "master.key"), join(target, "master.key"));
    expect((await runCli(["restore", backupFile, "--config", tomlFor(target)])).code).toBe(0);
    const restored = new Database(join(target, "chainwatch.db"), { readonly: true });
    expect(endpointsOf(restored)).toEqual(rows);
    restored.close();
    // The restored daemon signs the added endpoint's test with the secret its creation answered.
    const ctx = await openContext(testConfig(target), { env: {} });
    const daemon = await startDaemon(ctx);
    const sink = startWebhookSink();
    try {
      const path = `/v1/webhooks/endpoints/${added.endpoint_id}`;
      const call = (method: string, p: string, b?: unknown) => {
        const text = b === undefined ? "" : JSON.stringify(b);
        return fetch(`${daemon.url}${p}`, { method, body: b === undefined ? undefined : text, headers: { "Content-Type": "application/json", ...signedHeaders(c, method, p, text) } });
      };
      expect((await call("PATCH", path, { url: sink.url })).status).toBe(200);
      expect((await call("POST", `${path}/test`, { event: "payment", network: "eth" })).status).toBe(202);
      const [got] = await sink.waitFor(1);
      expect(new Webhook(added.secret).verify(got.body, got.headers as Record<string, string>)).toMatchObject({ type: "payment" });
    } finally {
      await sink.stop();
      await daemon.stop();
    }
  });

  test("a backup made before webhook endpoints existed restores, its key checked on the account's secret, and migrates", async () => {
    const old = join(freshDir(), "before-endpoints.db");
    const db = openDatabase(`sqlite://${old}`);
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo("0029_notice_resolution")).error).toBeUndefined();
    const box = createSecretBox(Uint8Array.from(Buffer.from(readFileSync(join(sourceDir(), "master.key"), "utf8").trim(), "hex")));
    await db
      .insertInto("accounts" as never)
      .values({
        id: "acc_old",
        name: "old",
        plan: "free",
        credits: 0,
        webhook_secret_enc: box.seal("whsec_b2xkLWFjY291bnQ="),
        webhook_url: "https://old.example/hook",
        webhook_enabled: 1,
        webhook_filters: "{}",
        created_at: 1,
        updated_at: 1,
      } as never)
      .execute();
    await db.destroy();
    const target = freshDir();
    writeFileSync(join(target, "master.key"), `${"cd".repeat(32)}\n`, { mode: 0o600 });
    const refused = await runCli(["restore", old, "--config", tomlFor(target)]);
    expect(refused.stderr).toBe(`chainwatch: the master key cannot decrypt the secrets in ${old}: put the master key of the backed-up installation in place first\n`);
    copyFileSync(join(sourceDir(), "master.key"), join(target, "master.key"));
    expect((await runCli(["restore", old, "--config", tomlFor(target)])).code).toBe(0);
    const shown = await runCli(["accounts", "show", "old", "--json", "--config", tomlFor(target)]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ account_id: "acc_old", webhook_secret: "whsec_b2xkLWFjY291bnQ=" });
  });

  test("backup never overwrites a file", async () => {
    const file = join(freshDir(), "exists.db");
    writeFileSync(file, "precious");
    const r = await runCli(["backup", file, "--config", tomlFor(source.dir)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`chainwatch: ${file} already exists; back up to a new file\n`);
    expect(await Bun.file(file).text()).toBe("precious");
  });

  test("restore refuses a database that a running daemon has open, and changes nothing", async () => {
    const backupFile = join(freshDir(), "b.db");
    expect((await runCli(["backup", backupFile, "--config", tomlFor(source.dir)])).code).toBe(0);
    const r = await runCli(["restore", backupFile, "--config", tomlFor(source.dir)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the database ${source.dir}/chainwatch.db is in use`);
    // The daemon keeps working on its database.
    expect((await clients[0].request("GET", "/v1/account")).status).toBe(200);
    expect(existsSync(`${source.dir}/chainwatch.db.restoring`)).toBe(false);
  });

  test("restore over a stopped database keeps the previous one beside it", async () => {
    const backupFile = join(freshDir(), "b.db");
    expect((await runCli(["backup", backupFile, "--config", tomlFor(source.dir)])).code).toBe(0);
    const target = freshDir();
    copyFileSync(join(source.dir, "master.key"), join(target, "master.key"));
    const config = tomlFor(target);
    expect((await runCli(["migrate", "--config", config])).code).toBe(0);
    const r = await runCli(["restore", backupFile, "--config", config, "--json"]);
    expect(r.stderr).toBe("");
    const doc = JSON.parse(r.stdout);
    expect(doc.previous).toStartWith(`${target}/chainwatch.db.before-restore-`);
    expect(existsSync(doc.previous)).toBe(true);
    const accounts = await runCli(["accounts", "list", "--config", config, "--json"]);
    expect(accounts.code).toBe(0);
    expect(JSON.parse(accounts.stdout).accounts.length).toBe(clients.length);
    // A stopped database (no daemon, no -wal) backs up too.
    const again = await runCli(["backup", join(target, "again.db"), "--config", config]);
    expect(again.code).toBe(0);
    expect(again.stdout).toStartWith(`backed up ${target}/chainwatch.db to ${target}/again.db (`);
  });

  test("restore refuses without the master key of the backup", async () => {
    const backupFile = join(freshDir(), "b.db");
    expect((await runCli(["backup", backupFile, "--config", tomlFor(source.dir)])).code).toBe(0);
    const target = freshDir();
    const missing = await runCli(["restore", backupFile, "--config", tomlFor(target)]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`master key file ${target}/master.key does not exist: put the master key of the backed-up installation there`);
    writeFileSync(join(target, "master.key"), `${"ab".repeat(32)}\n`, { mode: 0o600 });
    const wrong = await runCli(["restore", backupFile, "--config", tomlFor(target)]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe(`chainwatch: the master key cannot decrypt the secrets in ${backupFile}: put the master key of the backed-up installation in place first\n`);
    expect(existsSync(join(target, "chainwatch.db"))).toBe(false);
  });

  test("restore refuses a file that is not a chainwatch backup", async () => {
    const target = freshDir();
    copyFileSync(join(source.dir, "master.key"), join(target, "master.key"));
    const junk = join(target, "junk.db");
    writeFileSync(junk, "not a database at all, just text that is long enough to look like something");
    const r = await runCli(["restore", junk, "--config", tomlFor(target)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toStartWith(`chainwatch: ${junk} is not a readable SQLite database`);
  });
});

describe("backup on PostgreSQL", () => {
  test("prints a pg_dump command that carries no password", async () => {
    expect(pgDumpCommand("postgres://chain:s3cret@db.internal:5433/chainwatch", "/backups/cw.dump")).toBe(
      "pg_dump --format=custom --file=/backups/cw.dump --host=db.internal --port=5433 --username=chain --dbname=chainwatch",
    );
    expect(pgDumpCommand("postgresql://u@h/my db", "it's.dump")).toBe(`pg_dump --format=custom --file='it'\\''s.dump' --host=h --username=u --dbname='my db'`);
  });
});
