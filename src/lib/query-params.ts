import { type InvalidInput, invalidInput } from "./error-codes.ts";

/**
 * A query string as the use cases read it: each key maps to its one value, or to every value when
 * it was given more than once. Elysia's own query object keeps one of them silently, so
 * `?days=5&days=60` would be answered for a number the client may not have meant.
 */
export type RawQuery = Record<string, string | string[]>;

/** The one value of `key`; a key given twice is a failure naming it. */
export function single(query: RawQuery, key: string): string | undefined | InvalidInput {
  const value = query[key];
  if (Array.isArray(value)) return invalidInput(`${key} must be given once`);
  return value;
}

/**
 * An integer parameter in `min..max`, `fallback` when absent. Empty, repeated, signed, fractional
 * or out of range: a failure with the same sentence, `limit must be an integer from 1 to 1000`.
 */
export function integerParam(query: RawQuery, key: string, range: { min: number; max: number; fallback: number }): number | InvalidInput {
  const value = query[key];
  if (value === undefined) return range.fallback;
  const n = typeof value === "string" && /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= range.min && n <= range.max)) return invalidInput(`${key} must be an integer from ${range.min} to ${range.max}`);
  return n;
}
