import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { dialectOfUrl, sqlitePath } from "./database.ts";
import { type Result, type StartupFailure, startupFailure } from "../lib/error-codes.ts";
import { type FileLock, tryLockFile } from "../lib/file-lock.ts";

/** The lock file beside a SQLite database that the one `serve` on it holds. */
export function daemonLockPath(dbPath: string): string {
  return `${dbPath}.lock`;
}

/** `sole`: this process is now the only daemon on the database (a SQLite file it locked). */
export type DaemonLock = Result<{ lock: FileLock; sole: boolean }, StartupFailure>;

/**
 * Makes this process the only `serve` on a SQLite database (docs/operations.md): an exclusive
 * flock on `<db>.lock`, holding this process's pid, taken before the database is opened. Only
 * `serve` takes it; CLI commands open the database beside a running daemon as before. The lock
 * ends with the process however it ends, so a killed daemon never blocks the next start. A
 * PostgreSQL database needs none (several daemons are the point there), nor does `:memory:`.
 */
export function lockDatabaseForServe(url: string, pid: number): DaemonLock {
  const noLock: FileLock = { release() {} };
  if (dialectOfUrl(url) === "postgres") return { ok: true, lock: noLock, sole: false };
  const dbPath = sqlitePath(url);
  if (dbPath === ":memory:") return { ok: true, lock: noLock, sole: true };
  // The folder as opening the database would create it (a first start on a fresh machine).
  mkdirSync(dirname(dbPath), { recursive: true, mode: 0o700 });
  const attempt = tryLockFile(daemonLockPath(dbPath), `${pid}`);
  if (attempt.ok) return { ok: true, lock: attempt.lock, sole: true };
  if (attempt.code === "STARTUP") return startupFailure(`cannot make sure database ${dbPath} has one chainwatch serve: ${attempt.error}`);
  const pidOf = /^\d+$/.test(attempt.holder) ? ` (pid ${attempt.holder})` : "";
  return startupFailure(`database ${dbPath} is in use by another chainwatch serve${pidOf}`);
}
