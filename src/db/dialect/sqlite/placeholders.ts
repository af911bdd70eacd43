// SQLite's placeholders for the hand-written statements of every folder (`<folder>/sql/sqlite.ts`).

/** `?,?,…,?`: `n` placeholders. */
export const marks = (n: number) => "?,".repeat(n - 1) + "?";

/** `(?,…,?), …`: `rows` rows of `width` placeholders. */
export const rowsOf = (rows: number, width: number) => `(${marks(width)}),`.repeat(rows - 1) + `(${marks(width)})`;
