// JSON.parse builds every level of `[[[[…]]]]` before it can fail or return: a 1 MB body of nested
// arrays costs tens of MB, and an upstream answer of 32 MiB cost 1.5 GB. So every JSON text that
// comes from outside (a request body, a node's answer) is scanned for its nesting first, in one
// pass over its characters that allocates nothing, and refused past the bound.

/** The deepest nesting of arrays and objects chainwatch parses; nothing it reads nests near it. */
export const MAX_JSON_DEPTH = 64;

// The characters of JSON's structure, as charCodeAt gives them (also read by other scans of JSON text).
export const QUOTE = 0x22;
const BACKSLASH = 0x5c;
export const OPEN_ARRAY = 0x5b;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_ARRAY = 0x5d;
export const CLOSE_OBJECT = 0x7d;

/**
 * Whether a JSON text opens more than `max` arrays and objects inside one another. Brackets inside
 * strings do not count; the text need not be valid JSON (an unclosed `[[[…` counts as deep as it
 * opens), so the answer holds for whatever JSON.parse would have built before failing.
 */
export function jsonNestsDeeperThan(text: string, max: number = MAX_JSON_DEPTH): boolean {
  // Each level takes at least one character, and one opening bracket.
  if (text.length <= max || hasAtMostOpeners(text, max)) return false;
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i < 0) return false;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/**
 * Whether the text holds no more than `max` `[` and `{` in all, in strings or not: then it cannot
 * nest deeper. Counted with indexOf, which passes over the other characters natively, this costs a
 * node's small answer (a block header: a handful of brackets, 80 strings) a fifth of the scan below.
 */
function hasAtMostOpeners(text: string, max: number): boolean {
  let count = 0;
  for (let at = text.indexOf("["); at >= 0; at = text.indexOf("[", at + 1)) if (++count > max) return false;
  for (let at = text.indexOf("{"); at >= 0; at = text.indexOf("{", at + 1)) if (++count > max) return false;
  return true;
}

/** The index of the quote closing the string opened at `open`, or -1 when it is never closed. */
export function closingQuote(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at > 0) {
    // A quote preceded by an odd run of backslashes is escaped.
    let slashes = 0;
    for (let j = at - 1; text.charCodeAt(j) === BACKSLASH; j--) slashes++;
    if (slashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}
