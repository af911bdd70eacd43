import { Database } from "bun:sqlite";
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, renameSync, statSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import { migrations } from "../db/migrations/index.ts";
import { MIGRATED_BY, refusalFor } from "../db/version-guard.ts";
import { type Result, type StartupFailure, startupFailure } from "../lib/error-codes.ts";
import type { SecretBox } from "../secrets/secret-box.ts";

/** A backup step: its result, or why the command stops. */
export type Outcome<T extends object> = Result<T, StartupFailure>;

/**
 * A consistent copy of a live SQLite database with `VACUUM INTO`: it reads inside one read
 * transaction, so `serve` and the CLI keep writing meanwhile (WAL) and the copy is the database
 * as of one moment, compacted. The target is created exclusively with mode 0600 first — it holds
 * the sealed secrets — so an existing file is never overwritten.
 */
export function backupSqlite(dbPath: string, file: string): Outcome<{ bytes: number }> {
  if (!existsSync(dbPath)) return startupFailure(`no database at ${dbPath}`);
  try {
    closeSync(openSync(file, "wx", 0o600));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return startupFailure(code === "EEXIST" ? `${file} already exists; back up to a new file` : `cannot create ${file}: ${(e as Error).message}`);
  }
  let source: Database | undefined;
  try {
    source = new Database(dbPath, { readonly: true });
    source.run("PRAGMA busy_timeout = 5000");
    // VACUUM INTO accepts an existing empty file, which keeps the mode set above.
    source.query("VACUUM INTO ?").run(file);
  } catch (e) {
    unlinkSync(file);
    return startupFailure(`backup failed: ${(e as Error).message}`);
  } finally {
    source?.close();
  }
  const check = inspectBackup(file);
  if (!check.ok) return check;
  return { ok: true, bytes: statSync(file).size };
}

/**
 * Reads a backup without changing it: intact (`quick_check`), a chainwatch database, and not from
 * a newer chainwatch than `version`. Returns one sealed secret, if any, to test the master key on.
 */
export function inspectBackup(file: string, version?: string): Outcome<{ sealedSample: string | null }> {
  if (!existsSync(file)) return startupFailure(`no such file: ${file}`);
  let db: Database | undefined;
  try {
    db = new Database(file, { readonly: true });
    const quick = db.query("PRAGMA quick_check").get() as { quick_check: string } | null;
    if (quick?.quick_check !== "ok") return startupFailure(`${file} is damaged: ${quick?.quick_check ?? "no answer"}`);
    const tables = new Set((db.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name));
    if (!tables.has("kysely_migration") || !tables.has("accounts")) return startupFailure(`${file} is not a chainwatch database`);
    if (version !== undefined) {
      const applied = (db.query("SELECT name FROM kysely_migration").all() as { name: string }[]).map((r) => r.name);
      const stamp = tables.has("meta") ? (db.query("SELECT value FROM meta WHERE key = ?").get(MIGRATED_BY) as { value: string } | null) : null;
      const refusal = refusalFor({ applied, migratedBy: stamp?.value ?? null }, version, Object.keys(migrations));
      if (refusal) return startupFailure(`${file}: ${refusal}`);
    }
    // Webhook secrets live on the endpoints since migration 0030; an older backup has them on the accounts.
    const sample = tables.has("webhook_endpoints") ? "SELECT secret_enc AS sealed FROM webhook_endpoints LIMIT 1" : "SELECT webhook_secret_enc AS sealed FROM accounts LIMIT 1";
    const row = db.query(sample).get() as { sealed: string } | null;
    return { ok: true, sealedSample: row?.sealed ?? null };
  } catch (e) {
    return startupFailure(`${file} is not a readable SQLite database: ${(e as Error).message}`);
  } finally {
    db?.close();
  }
}

/**
 * Takes the database for this process alone, or says it is in use. Every open connection to a WAL
 * database holds a shared lock on the file for as long as it is open, even idle, so an exclusive
 * lock with no wait succeeds only when no `serve` or other command has the file open. The lock is
 * kept (locking_mode EXCLUSIVE) until `release`; the WAL is folded back into the file first, so the
 * file alone is the whole database.
 */
export function lockIdleDatabase(dbPath: string): Outcome<{ release(): void }> {
  const db = new Database(dbPath);
  try {
    db.run("PRAGMA busy_timeout = 0");
    db.run("PRAGMA locking_mode = EXCLUSIVE");
    db.run("BEGIN EXCLUSIVE");
    db.run("COMMIT");
  } catch {
    db.close();
    return startupFailure(`the database ${dbPath} is in use (a running \`chainwatch serve\` or another command has it open): stop it first`);
  }
  // Leaving WAL checkpoints and removes the -wal file while we are the only connection.
  db.run("PRAGMA journal_mode = DELETE");
  db.run("BEGIN EXCLUSIVE");
  return { ok: true, release: () => db.close() };
}

export type RestoreOptions = { dbPath: string; file: string; box: SecretBox; version: string; now: Date };

/**
 * Replaces the configured SQLite database with a backup. Refuses a damaged or newer backup, one the
 * master key cannot open, and a database in use (`lockIdleDatabase`). An existing database is kept
 * beside it as `<db>.before-restore-<time>`, never deleted.
 */
export function restoreSqlite(opts: RestoreOptions): Outcome<{ previous: string | null }> {
  const { dbPath, file, box } = opts;
  const backup = inspectBackup(file, opts.version);
  if (!backup.ok) return backup;
  if (backup.sealedSample !== null) {
    try {
      box.open(backup.sealedSample);
    } catch {
      return startupFailure(`the master key cannot decrypt the secrets in ${file}: put the master key of the backed-up installation in place first`);
    }
  }
  mkdirSync(dirname(dbPath), { recursive: true, mode: 0o700 });
  const staging = `${dbPath}.restoring`;
  let lock: { release(): void } | null = null;
  if (existsSync(dbPath)) {
    const locked = lockIdleDatabase(dbPath);
    if (!locked.ok) return locked;
    lock = locked;
  }
  try {
    copyFileSync(file, staging);
    const previous = lock ? `${dbPath}.before-restore-${opts.now.toISOString().replace(/[:.]/g, "-")}` : null;
    if (previous) renameSync(dbPath, previous);
    for (const leftover of [`${dbPath}-wal`, `${dbPath}-shm`]) if (existsSync(leftover)) unlinkSync(leftover);
    renameSync(staging, dbPath);
    return { ok: true, previous };
  } catch (e) {
    if (existsSync(staging)) unlinkSync(staging);
    return startupFailure(`restore failed: ${(e as Error).message}`);
  } finally {
    lock?.release();
  }
}

/**
 * The `pg_dump` command that backs up a PostgreSQL database URL. The password is left out, so
 * nothing secret is printed: pg_dump reads it from PGPASSWORD or ~/.pgpass.
 */
export function pgDumpCommand(url: string, file: string): string {
  const u = new URL(url);
  const q = (s: string) => (/^[A-Za-z0-9_./:@=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  const parts = ["pg_dump", "--format=custom", `--file=${q(file)}`];
  if (u.hostname) parts.push(`--host=${q(decodeURIComponent(u.hostname))}`);
  if (u.port) parts.push(`--port=${u.port}`);
  if (u.username) parts.push(`--username=${q(decodeURIComponent(u.username))}`);
  const dbName = decodeURIComponent(u.pathname.replace(/^\//, ""));
  if (dbName) parts.push(`--dbname=${q(dbName)}`);
  return parts.join(" ");
}

