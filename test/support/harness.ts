import { createHash, createHmac } from "node:crypto";
import { sql } from "kysely";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApiKey } from "../../src/accounts/api-keys.ts";
import { addCredits, createAccount } from "../../src/accounts/accounts.ts";
import { setPlan } from "../../src/accounts/plans.ts";
import { parseConfig } from "../../src/config/load.ts";
import type { Config } from "../../src/config/schema.ts";
import { type Context, openContext, type RunningDaemon, startDaemon } from "../../src/daemon.ts";
import { openDatabase } from "../../src/db/database.ts";
import { migrateChecked } from "../../src/db/version-guard.ts";
import type { Clock } from "../../src/lib/clock.ts";
import type { Logger } from "../../src/lib/log.ts";
import type { Resolver } from "../../src/net/target-guard.ts";
import { VERSION } from "../../src/version.ts";
import { createTestDatabase } from "./pg-databases.ts";
import { templateName } from "./pg-template.ts";

export const INGEST_TOKEN = "test-ingest-token";

type Json = Record<string, unknown>;

function deepMerge(a: Json, b: Json): Json {
  const out: Json = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const cur = out[k];
    out[k] =
      v && typeof v === "object" && !Array.isArray(v) && cur && typeof cur === "object" && !Array.isArray(cur)
        ? deepMerge(cur as Json, v as Json)
        : v;
  }
  return out;
}

/**
 * The database a test gets: a temp SQLite file in `dir`, or, when CHAINWATCH_TEST_DATABASE_URL
 * names a PostgreSQL server (`.ci/run` starts one), a fresh database of its own on that server,
 * so tests stay isolated and may run in parallel (made by pg-databases.ts, synchronously because
 * configs are built synchronously). On PostgreSQL it is a copy of a migrated template
 * (test/support/pg-template.ts) unless `empty` (tests of migrating itself); a SQLite file starts
 * empty here (the CLI's tests create it with `migrate`), and startTestDaemon copies a migrated one
 * into place first.
 */
export function testDatabaseUrl(dir: string, opts: { empty?: boolean } = {}): string {
  const server = process.env.CHAINWATCH_TEST_DATABASE_URL;
  if (!server) return `sqlite://${dir}/chainwatch.db`;
  // One directory, one database, as one directory holds one SQLite file.
  const known = databaseOfDir.get(dir);
  if (known) return known;
  const name = createTestDatabase(server, { empty: opts.empty });
  const url = new URL(server);
  url.pathname = `/${name}`;
  databaseOfDir.set(dir, url.toString());
  return url.toString();
}

/** How the CLI names a test's database: the SQLite file, or the PostgreSQL URL with its password masked. */
export function testDatabaseName(dir: string): string {
  const url = testDatabaseUrl(dir);
  if (url.startsWith("sqlite://")) return url.slice("sqlite://".length);
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.href;
}

/** Whether the suite runs on PostgreSQL (for the few tests that read SQLite's file directly). */
export const onPostgres = Boolean(process.env.CHAINWATCH_TEST_DATABASE_URL);

const databaseOfDir = new Map<string, string>();

/** A config for tests: a temp database (see testDatabaseUrl), port 0, private targets allowed (receivers live on 127.0.0.1). */
export function testConfig(dir: string, overrides: Json = {}, opts: { emptyDatabase?: boolean } = {}): Config {
  const raw = deepMerge(
    {
      server: { host: "127.0.0.1", port: 0 },
      // Two pooled connections are plenty for one test's traffic, and each one PostgreSQL starts
      // costs its server ~30 ms of CPU on a small machine.
      database: { url: testDatabaseUrl(dir, { empty: opts.emptyDatabase }), pool_size: 2 },
      secrets: { master_key_file: `${dir}/master.key` },
      ingest: { token: INGEST_TOKEN },
      // A receiver gets 10 s to answer: on a loaded machine a local receiver's answer can come after a
      // second or more, and a shorter timeout_ms turns a send a test expects to succeed into a
      // timeout and a retry. A test of the timeout sets its own short one.
      delivery: { allow_private_targets: true, backoff_seconds: [1, 1, 1], timeout_ms: 10_000 },
    },
    overrides,
  );
  const result = parseConfig(raw, "test config");
  if (!result.ok) throw new Error(result.error);
  return result.config;
}

export type Credentials = { apiKey: string; secret: string };

/** Signs like an independent client would (node:crypto directly, not chainwatch's own signer). */
export function signedHeaders(creds: Credentials, method: string, path: string, body: string | Uint8Array = "", timestamp = Math.floor(Date.now() / 1000)) {
  const bodyHash = createHash("sha256").update(body).digest("hex");
  const canonical = `${timestamp}\n${method}\n${path}\n${bodyHash}`;
  return {
    "X-Api-Key": creds.apiKey,
    "X-Timestamp": String(timestamp),
    "X-Signature": createHmac("sha256", creds.secret).update(canonical).digest("hex"),
  };
}

export type TestClient = Credentials & {
  accountId: string;
  webhookSecret: string;
  /** A signed request; `body` is sent exactly as given (a string) or JSON-encoded. */
  request(method: string, pathWithQuery: string, body?: unknown, extraHeaders?: Record<string, string>): Promise<Response>;
};

export type TestDaemon = {
  url: string;
  dir: string;
  ctx: Context;
  daemon: RunningDaemon;
  config: Config;
  /** Creates an account (on a plan with `slots`) and an API key, returning a signed client. */
  client(opts?: { name?: string; slots?: number; credits?: number; allowIps?: string[]; rpcRps?: number }): Promise<TestClient>;
  /** POSTs a block batch to /ingest/blocks with the test token. */
  ingest(batch: unknown): Promise<Response>;
  stop(): Promise<void>;
};

let counter = 0;

let sqliteTemplate: Promise<string> | undefined;

/**
 * A migrated SQLite file to copy, as pg-template.ts makes one per PostgreSQL server: made by the
 * same migrations and stamp a daemon applies, with its WAL folded into the file, and named like
 * that template (by the migrations and the version), so test processes and runs share it and a
 * new migration makes a new one. Applying every migration costs each test daemon 40–80 ms of
 * CPU; copying the file, next to none. Built beside its name and renamed into place, so no
 * process ever copies half a file.
 */
function sqliteTemplateFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const cache = join(tmpdir(), "chainwatch-test-sqlite");
    const path = join(cache, `${templateName()}.db`);
    if (existsSync(path)) return path;
    mkdirSync(cache, { recursive: true });
    const partial = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    const db = openDatabase(`sqlite://${partial}`);
    try {
      const migrated = await migrateChecked(db, VERSION);
      if (!migrated.ok) throw new Error(`cannot migrate the test template: ${migrated.error}`);
      await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
    } finally {
      await db.destroy();
    }
    renameSync(partial, path);
    for (const left of [`${partial}-wal`, `${partial}-shm`]) rmSync(left, { force: true });
    return path;
  })();
  return sqliteTemplate;
}

/**
 * Puts a copy of the migrated template where `config` keeps its database, when that is `dir`'s own
 * SQLite file (testDatabaseUrl): what opening it would apply is applied already. Nothing on
 * PostgreSQL, whose test databases are copies of its template anyway.
 */
export async function seedTestDatabase(dir: string, config: Config): Promise<void> {
  if (config.database.url === `sqlite://${dir}/chainwatch.db`) copyFileSync(await sqliteTemplateFile(), `${dir}/chainwatch.db`);
}

/**
 * Starts a real daemon on an ephemeral port over a fresh SQLite file (a copy of the migrated template).
 * Without the WAL checkpoint thread unless `walCheckpointThread`: its start is a third of a test
 * daemon's CPU, and what it does is invisible to what these daemons are asked (SQLite's own
 * automatic checkpoint takes over, as when the thread ends); test/db/wal-checkpoint.test.ts proves
 * the thread, and every `serve` the suite spawns runs it.
 */
export async function startTestDaemon(
  opts: { config?: Json; clock?: Clock; log?: Logger; fallbackClientIp?: string | null; resolveHost?: Resolver; walCheckpointThread?: boolean } = {},
): Promise<TestDaemon> {
  const dir = mkdtempSync(join(tmpdir(), "chainwatch-test-"));
  const config = testConfig(dir, opts.config);
  let ctx: Context | undefined;
  let daemon: RunningDaemon;
  try {
    await seedTestDatabase(dir, config);
    ctx = await openContext(config, { clock: opts.clock, log: opts.log, env: {} });
    daemon = await startDaemon(ctx, { fallbackClientIp: opts.fallbackClientIp, resolveHost: opts.resolveHost, walCheckpointThread: opts.walCheckpointThread ?? false });
  } catch (e) {
    // A daemon that failed to start (a port in use, a bad config) leaves no folder nor connection behind.
    await ctx?.db.destroy();
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const url = daemon.url;
  return {
    url,
    dir,
    ctx,
    daemon,
    config,
    async client(o = {}) {
      const name = o.name ?? `acct${++counter}`;
      const planName = `plan-${name}`;
      const plan = await setPlan(ctx.db, ctx.clock, { name: planName.toLowerCase(), slots: o.slots ?? 10, rpcRps: o.rpcRps });
      if (!plan.ok) throw new Error(plan.error);
      const acct = await createAccount(ctx, { name, plan: planName.toLowerCase(), credits: 0 });
      if (!acct.ok) throw new Error(acct.error);
      if (o.credits) await addCredits(ctx.db, ctx.clock, acct.account.id, o.credits);
      const key = await createApiKey(ctx, { accountId: acct.account.id, allowIps: o.allowIps ?? [] });
      if (!key.ok) throw new Error(key.error);
      const creds = { apiKey: key.key.api_key, secret: key.key.secret };
      return {
        ...creds,
        accountId: acct.account.id,
        webhookSecret: acct.webhookSecret as string,
        request(method, pathWithQuery, body, extraHeaders = {}) {
          const text = body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body);
          const path = pathWithQuery.split("?")[0];
          const ts = Math.floor(ctx.clock.now() / 1000);
          return fetch(`${url}${pathWithQuery}`, {
            method,
            body: body === undefined ? undefined : text,
            headers: {
              ...(body === undefined ? {} : { "Content-Type": "application/json" }),
              ...signedHeaders(creds, method, path, text, ts),
              ...extraHeaders,
            },
          });
        },
      };
    },
    ingest(batch) {
      return fetch(`${url}/ingest/blocks`, {
        method: "POST",
        body: typeof batch === "string" ? batch : JSON.stringify(batch),
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${INGEST_TOKEN}` },
      });
    },
    async stop() {
      await daemon.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
