// PostgreSQL's numbered placeholders for the hand-written statements of every folder
// (`<folder>/sql/postgres.ts`).

/** `$from, …`: `n` numbered placeholders starting at `from`. */
export function numbered(from: number, n: number): string {
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) out[i] = `$${from + i}`;
  return out.join(",");
}

/** `($1,…,$width), ($width+1,…), …`: `rows` rows of `width` numbered placeholders. */
export function rowsOf(rows: number, width: number): string {
  const out = new Array<string>(rows);
  for (let r = 0; r < rows; r++) out[r] = `(${numbered(r * width + 1, width)})`;
  return out.join(",");
}
