// A NUL character (U+0000) in a text value: PostgreSQL refuses it (SQLSTATE 22021,
// character_not_in_repertoire: `invalid byte sequence for encoding "UTF8": 0x00`); SQLite would
// store it. The HTTP edge refuses NUL in every input first (src/lib/nul-text.ts); this is the
// backstop for any value that reached a statement anyway, answered as the client's error (400),
// not as a bug. The statement's transaction rolled back: nothing of it is stored.

/** PostgreSQL's SQLSTATE for a character the database's encoding cannot hold. */
const POSTGRES_CHARACTER_NOT_IN_REPERTOIRE = "22021";

/** Whether `error` (or an error it wraps) says a text value held a character no column may store. */
export function isUnstorableText(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === POSTGRES_CHARACTER_NOT_IN_REPERTOIRE) return true;
  }
  return false;
}
