// PostgreSQL's text cannot hold U+0000, and nothing chainwatch stores has a use for it: every input
// (a JSON body, a URL, a cabinet form) that carries one is refused with a 400 naming where, on
// either database, before it reaches a use case.

/** The sentence a refusal ends with, after the field (or part of the request) it names. */
export const NO_NUL = "must not contain the NUL character (\\u0000)";

/**
 * Where the first string holding U+0000 sits in a parsed JSON value (`transactions[0].hash`,
 * `body` for the value itself; an object key counts as its field's), or null when none does.
 */
export function nulPath(value: unknown, path = ""): string | null {
  if (typeof value === "string") return value.includes("\u0000") ? path || "body" : null;
  if (value === null || typeof value !== "object") return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulPath(value[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, child] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (key.includes("\u0000")) return at;
    const found = nulPath(child, at);
    if (found !== null) return found;
  }
  return null;
}

/**
 * The same for a JSON text about to be parsed: only an escaped `\u0000` can put a NUL in valid
 * JSON (a raw one is not valid), so a text without that sequence is passed without a walk.
 */
export function nulPathInJson(text: string, parsed: unknown): string | null {
  return text.includes("\\u0000") ? nulPath(parsed) : null;
}
