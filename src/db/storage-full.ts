import type { Logger } from "../lib/log.ts";

// A full disk under the database: SQLite's "database or disk is full" (SQLITE_FULL), PostgreSQL's
// disk_full (SQLSTATE 53100). The statement that met it failed and its transaction was rolled back,
// so nothing of it is stored; the same write succeeds once space is freed. The HTTP edge answers it
// with 503 STORAGE_FULL; the delivery loop retries its settlement (delivery/loop.ts).

/** PostgreSQL's SQLSTATE for a full disk. */
const POSTGRES_DISK_FULL = "53100";

/** Whether `error` (or an error it wraps) says the database's storage is full. */
export function isStorageFull(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === "SQLITE_FULL" || code === POSTGRES_DISK_FULL) return true;
  }
  return false;
}

/**
 * Tells the log when the database's storage fills up and when a write succeeds again: once per
 * change of state, however many statements fail meanwhile. The SQLite connection reports to it
 * (dialect/sqlite/connection.ts).
 */
export type StorageWatch = {
  /** A statement failed; a full disk turns the state to full (logged once). */
  failed(error: unknown): void;
  /** A write committed; a full state turns writable again (logged once). */
  wrote(): void;
  readonly full: boolean;
};

/** A watch that logs through `log` (the daemon's logger). */
export function createStorageWatch(log: Logger): StorageWatch {
  let full = false;
  return {
    failed(error) {
      if (full || !isStorageFull(error)) return;
      full = true;
      log.error("database storage full; writes are refused until space is freed", { error: String(error) });
    },
    wrote() {
      if (!full) return;
      full = false;
      log.info("database storage writable again");
    },
    get full() {
      return full;
    },
  };
}
