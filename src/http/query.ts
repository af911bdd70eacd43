import { badRequest } from "./errors.ts";
import { requestQuery } from "../net/request-target.ts";

/**
 * The query string as the routes' parsers read it: each key maps to its one value, or to every
 * value when it was given more than once. Elysia's own query object keeps one of them silently,
 * so `?days=5&days=60` would be answered for a number the client may not have meant.
 */
export type RawQuery = Record<string, string | string[]>;

/** Reads the request's query string, keeping repeated keys as lists. */
export function rawQuery(request: Request): RawQuery {
  const query: RawQuery = {};
  for (const [key, value] of requestQuery(request)) {
    const seen = query[key];
    query[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return query;
}

/** The one value of `key`; a key given twice is a 400 naming it. */
export function single(query: RawQuery, key: string): string | undefined {
  const value = query[key];
  if (Array.isArray(value)) throw badRequest(`${key} must be given once`);
  return value;
}

/**
 * An integer parameter in `min..max`, `fallback` when absent. Empty, repeated, signed, fractional
 * or out of range: a 400 with the same sentence, `limit must be an integer from 1 to 1000`.
 */
export function integerParam(query: RawQuery, key: string, range: { min: number; max: number; fallback: number }): number {
  const value = query[key];
  if (value === undefined) return range.fallback;
  const n = typeof value === "string" && /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= range.min && n <= range.max)) throw badRequest(`${key} must be an integer from ${range.min} to ${range.max}`);
  return n;
}
