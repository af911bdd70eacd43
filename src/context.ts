import type { Config } from "./config/schema.ts";
import { checkConnection } from "./db/connection-check.ts";
import { type Db, openDatabase, type PostgresPoolOptions } from "./db/database.ts";
import { createStorageWatch } from "./db/storage-full.ts";
import { migrateChecked } from "./db/version-guard.ts";
import { type Clock, systemClock } from "./lib/clock.ts";
import { type Logger, silentLogger } from "./lib/log.ts";
import { checkMasterKey } from "./secrets/key-check.ts";
import { loadMasterKey } from "./secrets/master-key.ts";
import { createSecretBox, type SecretBox } from "./secrets/secret-box.ts";
import { VERSION } from "./version.ts";

// Apart from daemon.ts: every CLI command opens a context, and only `serve` needs the HTTP server,
// the followers and the workers that daemon.ts builds.

/**
 * What every command needs: the migrated database, the secret box and the clock.
 * `migrationsApplied`: the migrations this open applied (empty when the schema was already current).
 */
export type Context = { config: Config; db: Db; box: SecretBox; clock: Clock; log: Logger; migrationsApplied: string[] };

/** `create: false` refuses to create a missing database or master key (CLI commands other than migrate/serve). */
export type ContextOptions = { clock?: Clock; log?: Logger; env?: Record<string, string | undefined>; create?: boolean };

/**
 * Opens the database, applies pending migrations and loads (creating on first use) the master
 * key. Every CLI command and `serve` start here, so a fresh machine needs no separate setup step.
 */
export async function openContext(config: Config, opts: ContextOptions = {}): Promise<Context> {
  const env = opts.env ?? process.env;
  const create = opts.create ?? true;
  const key = loadMasterKey({ file: config.secrets.master_key_file, envValue: env.CHAINWATCH_MASTER_KEY, create });
  if (!key.ok) throw new StartupError(key.error);
  const log = opts.log ?? silentLogger;
  // A full disk under the SQLite file is logged once when it fills and once when writes succeed again.
  const pool = poolOptions(config);
  const db = openDatabase(config.database.url, { storage: createStorageWatch(log), pool });
  // A database that cannot be reached says so, naming database.url, before anything is migrated.
  const reached = await checkConnection(db, config.database.url);
  if (!reached.ok) {
    await db.destroy();
    throw new StartupError(reached.error);
  }
  // Migrations run on connections of their own without the per-statement bound: building an index
  // on a large table may take longer than any request should.
  const migrated = await migrateChecked(db, VERSION, () => openDatabase(config.database.url, { pool: { ...pool, queryTimeoutMs: 0 } }));
  if (!migrated.ok) {
    await db.destroy();
    throw new StartupError(migrated.error);
  }
  const box = createSecretBox(key.key);
  const keyCheck = await checkMasterKey(db, box);
  if (!keyCheck.ok) {
    await db.destroy();
    throw new StartupError(keyCheck.error);
  }
  return { config, db, box, clock: opts.clock ?? systemClock, log, migrationsApplied: migrated.applied };
}

/** The PostgreSQL pool's size and bounds, from `[database]`. */
export function poolOptions(config: Config): PostgresPoolOptions {
  return {
    connectTimeoutMs: config.database.connect_timeout_ms,
    queryTimeoutMs: config.database.query_timeout_ms,
    poolSize: config.database.pool_size,
  };
}

/** A failure that stops start-up with a one-line reason. */
export class StartupError extends Error {}
