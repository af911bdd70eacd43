import { mkdirSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { dialectOfUrl, sqlitePath } from "./database.ts";
import { type Result, type StartupFailure, startupFailure } from "../lib/error-codes.ts";
import { type FileLock, type LockHolder, tryLockFile } from "../lib/file-lock.ts";

/** `sole`: this process is now the only daemon on the database (a SQLite file it locked). */
export type DaemonLock = Result<{ lock: FileLock; sole: boolean }, StartupFailure>;

/**
 * Makes this process the only `serve` on a SQLite database (docs/operations.md): an exclusive
 * flock on the database file itself, taken before the database is opened. The lock is the file's,
 * not its name's, so the same file reached by a symlink, a hard link or another path meets it too.
 * Only `serve` takes it; CLI commands open the database beside a running daemon as before (SQLite's
 * own locks are fcntl locks, which an flock does not touch). The lock ends with the process however
 * it ends, so a killed daemon never blocks the next start. Release it only after the database is
 * closed (file-lock.ts says why). A PostgreSQL database needs none (several daemons are the point
 * there), nor does `:memory:`.
 */
export function lockDatabaseForServe(url: string): DaemonLock {
  const noLock: FileLock = { release() {} };
  if (dialectOfUrl(url) === "postgres") return { ok: true, lock: noLock, sole: false };
  const dbPath = sqlitePath(url);
  if (dbPath === ":memory:") return { ok: true, lock: noLock, sole: true };
  // The folder as opening the database would create it (a first start on a fresh machine).
  mkdirSync(dirname(dbPath), { recursive: true, mode: 0o700 });
  const attempt = tryLockFile(dbPath);
  if (attempt.ok) return { ok: true, lock: attempt.lock, sole: true };
  if (attempt.code === "STARTUP") return startupFailure(`cannot make sure database ${dbPath} has one chainwatch serve: ${attempt.error}`);
  return startupFailure(`database ${dbPath} is in use by another chainwatch serve${holderNote(dbPath, attempt.holder)}`);
}

/** ` (pid 1234)`, and the other daemon's path to the file when it is another name for it. */
function holderNote(dbPath: string, holder: LockHolder | null): string {
  if (holder === null) return "";
  // The kernel names an open file by its real folder and the name it was opened by: a symlinked
  // data folder is the same name, a symlink or hard link to the file another.
  if (holder.path === null || holder.path === join(realpathSync(dirname(dbPath)), basename(dbPath))) return ` (pid ${holder.pid})`;
  return ` (pid ${holder.pid}, which opened the same file as ${holder.path})`;
}
