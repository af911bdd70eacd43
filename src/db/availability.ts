// The database gone or stalled: a PostgreSQL server restarting, stopped, unreachable or out of
// connections, a query or a connection that did not answer within its bound
// (`database.connect_timeout_ms`, `database.query_timeout_ms`), or SQLite busy past its
// busy_timeout. Nothing of the request that met it is stored (its transaction rolled back); the
// same request succeeds once the database is back. The HTTP edge answers it with 503
// DATABASE_UNAVAILABLE, and the workers simply try again on their next run.

/** node's socket errors that mean the server cannot be reached or went away. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "ENOTFOUND"]);

/**
 * PostgreSQL SQLSTATEs of a server that is not there to answer: 57P01 admin_shutdown (`pg_ctl
 * restart -m fast` ends every session with it), 57P02 crash_shutdown, 57P03 cannot_connect_now
 * (starting up, shutting down), 53300 too_many_connections, 57014 query_canceled (the server's
 * statement_timeout); class 08 is every connection exception.
 */
const SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300", "57014"]);

/** node-postgres and pg-pool say these in words only (no code). */
const DRIVER_WORDS = /timeout exceeded when trying to connect|Connection terminated|Query read timeout|connection timeout|Client has encountered a connection error|Client was closed and is not queryable|the database system is (starting up|shutting down|in recovery mode)/i;

/** Thrown by the PostgreSQL pool when a query got no answer within `database.query_timeout_ms`. */
export class DatabaseTimeout extends Error {
  constructor(ms: number) {
    super(`the database did not answer within ${ms} ms`);
  }
}

/** Whether `error` (or an error it wraps) says the database is unavailable for now. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof DatabaseTimeout) return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (SOCKET_CODES.has(code) || SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code) || code === "SQLITE_BUSY")) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === "string" && DRIVER_WORDS.test(message)) return true;
    // An AggregateError (one per address tried) is unavailable when its errors are.
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0 && errors.every(isDatabaseUnavailable)) return true;
  }
  return false;
}

/** A short reason for `/healthz` and the log: the driver's words, without the URL. */
export function unavailableReason(error: unknown): string {
  const e = (error ?? {}) as { message?: string; code?: string; errors?: { message?: string }[] };
  return e.message || e.errors?.map((x) => x.message).filter(Boolean).join("; ") || e.code || String(error);
}
