import { resolve } from "node:path";
import type { Config } from "./config/schema.ts";
import { checkConnection } from "./db/connection-check.ts";
import { type Db, openDatabase, type PostgresPoolOptions } from "./db/database.ts";
import { createStorageWatch } from "./db/storage-full.ts";
import { migrateChecked, readSchemaStamp } from "./db/version-guard.ts";
import { type Clock, systemClock } from "./lib/clock.ts";
import { type Logger, silentLogger } from "./lib/log.ts";
import { checkMasterKey } from "./secrets/key-check.ts";
import { createMasterKey, readMasterKey } from "./secrets/master-key.ts";
import { hasSealedSecrets, lostMasterKeyMessage } from "./secrets/sealed-secrets.ts";
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
 * Opens the database, applies pending migrations and loads the master key. Every CLI command and
 * `serve` start here, so a fresh machine needs no separate setup step. A missing key is created
 * (with `create`) only for a database that answered and holds no sealed secret; a database that
 * holds some is refused, naming where its key was expected, and nothing is written.
 */
export async function openContext(config: Config, opts: ContextOptions = {}): Promise<Context> {
  const env = opts.env ?? process.env;
  const create = opts.create ?? true;
  const keyFile = config.secrets.master_key_file;
  // Read only: a key is never written before the database has answered.
  const found = readMasterKey({ file: keyFile, envValue: env.CHAINWATCH_MASTER_KEY });
  if (!found.ok) throw new StartupError(found.error);
  const log = opts.log ?? silentLogger;
  // A full disk under the SQLite file is logged once when it fills and once when writes succeed again.
  const pool = poolOptions(config);
  const db = openDatabase(config.database.url, { storage: createStorageWatch(log), pool });
  const refuse = async (error: StartupError): Promise<never> => {
    await db.destroy();
    throw error;
  };
  // A database that cannot be reached says so, naming database.url, before anything is migrated.
  const reached = await checkConnection(db, config.database.url);
  if (!reached.ok) return refuse(new StartupError(reached.error));
  // No key: decided before migrating, so a refused start leaves the database as it found it.
  if (found.key === null) {
    const refusal = await missingKeyRefusal(db, keyFile, create);
    if (refusal) return refuse(refusal);
  }
  // Migrations run on connections of their own without the per-statement bound: building an index
  // on a large table may take longer than any request should.
  const migrated = await migrateChecked(db, VERSION, () => openDatabase(config.database.url, { pool: { ...pool, queryTimeoutMs: 0 } }));
  if (!migrated.ok) return refuse(new StartupError(migrated.error));
  const key = found.key ?? (await newMasterKey(db, keyFile, refuse));
  const box = createSecretBox(key);
  const keyCheck = await checkMasterKey(db, box);
  if (!keyCheck.ok) return refuse(new StartupError(keyCheck.error));
  return { config, db, box, clock: opts.clock ?? systemClock, log, migrationsApplied: migrated.applied };
}

/**
 * Why a database cannot be opened without a master key, or null when a new key may be made for
 * it: it holds no sealed secret and the command may create (`migrate`, `serve`, `--create`).
 */
async function missingKeyRefusal(db: Db, keyFile: string, create: boolean): Promise<StartupError | null> {
  try {
    const { applied } = await readSchemaStamp(db);
    if (await hasSealedSecrets(db, applied)) return new StartupError(lostMasterKeyMessage(resolve(keyFile)));
  } catch (e) {
    return new StartupError(`cannot tell whether the database holds sealed secrets: ${(e as Error).message}`);
  }
  return create ? null : new MissingMasterKey(`no master key at ${resolve(keyFile)} (and $CHAINWATCH_MASTER_KEY is not set)`);
}

/**
 * A new master key for a database just migrated, looked at once more first: another process (a
 * CLI command beside a starting daemon) may have made the key and sealed a secret under it
 * meanwhile; then its key file exists and is the one used.
 */
async function newMasterKey(db: Db, keyFile: string, refuse: (e: StartupError) => Promise<never>): Promise<Uint8Array> {
  const again = readMasterKey({ file: keyFile, envValue: undefined });
  if (!again.ok) return refuse(new StartupError(again.error));
  if (again.key !== null) return again.key;
  const refusal = await missingKeyRefusal(db, keyFile, true);
  if (refusal) return refuse(refusal);
  const made = createMasterKey(keyFile);
  return made.ok ? made.key : refuse(new StartupError(made.error));
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

/** No master key, for a command not allowed to create one, on a database that holds no sealed secret. */
export class MissingMasterKey extends StartupError {}
