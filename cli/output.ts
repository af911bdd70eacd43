import type { Globals } from "./globals.ts";

/** Prints one JSON document with --json, else the human rendering. */
export function emit(globals: Globals, doc: unknown, human: () => string): void {
  globals.io.stdout.write(globals.json ? `${JSON.stringify(doc)}\n` : `${human()}\n`);
}

/** A plain left-aligned text table. */
export function table(headers: string[], rows: (string | number | null | undefined)[][]): string {
  if (rows.length === 0) return "(none)";
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === null || c === undefined ? "-" : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells.map((r) => r.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd()).join("\n");
}

/** `key: value` lines for a single record. */
export function fields(pairs: [string, unknown][]): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${k.padEnd(width)}  ${typeof v === "object" && v !== null ? JSON.stringify(v) : String(v ?? "-")}`).join("\n");
}
