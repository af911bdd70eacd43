// Two PostgreSQL transactions that each wait for the other (SQLSTATE 40P01, deadlock_detected), or
// one that cannot be serialised after another (40001, serialization_failure): the server ends one
// of them and rolls it back whole. Nothing of it is stored, and the same work run again succeeds.
// Accounts are locked in one order and at the level their updates take (db/dialect/postgres/
// primitives.ts) so that none is known to happen; this is the backstop for one that does: the HTTP
// edge answers it with 503 DATABASE_CONFLICT and Retry-After, not as a bug (500), and logs it as a
// warning, since it says two writes took their locks in opposite orders. SQLite, one writer at a
// time, never raises either.

/** The SQLSTATEs of a transaction PostgreSQL ended because it conflicted with another. */
const CONFLICT_SQLSTATES = new Set(["40P01", "40001"]);

/** Whether `error` (or an error it wraps) says the transaction was ended for conflicting with another. */
export function isWriteConflict(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && CONFLICT_SQLSTATES.has(code)) return true;
  }
  return false;
}
