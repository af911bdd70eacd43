import { Type as T } from "@sinclair/typebox";

/** RFC 3339 with milliseconds and a numeric offset, always UTC: `2026-11-21T19:08:00.000+00:00`. */
export function rfc3339(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, -1)}+00:00`;
}

const DAY_MS = 86_400_000;

/** The UTC calendar day of an instant, `YYYY-MM-DD`. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * `utcDay` for a caller that asks on every request: the day is formatted again only when the
 * instant leaves the day formatted last (two comparisons otherwise).
 */
export function utcDayCache(): (ms: number) => string {
  let day = { name: "", from: 0, until: 0 };
  return (ms) => {
    if (ms < day.from || ms >= day.until) {
      const from = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
      day = { name: utcDay(ms), from, until: from + DAY_MS };
    }
    return day.name;
  };
}

/** The `count` UTC days ending with the day of `ms`, oldest first. */
export function lastUtcDays(ms: number, count: number): string[] {
  const today = Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth(), new Date(ms).getUTCDate());
  return Array.from({ length: count }, (_, i) => utcDay(today - (count - 1 - i) * DAY_MS));
}

const DURATION_UNITS_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A duration with its unit (`30s`, `15m`, `24h`, `7d`) in milliseconds, or null when it is not one. */
export function parseDuration(text: string): number | null {
  const m = /^(\d{1,7})([smhd])$/.exec(text.trim());
  return m ? Number(m[1]) * DURATION_UNITS_MS[m[2] as keyof typeof DURATION_UNITS_MS] : null;
}

/** The schema of an instant in a request body: Unix seconds, from 1970 to the end of year 9999. */
export function unixSecondsSchema(description: string) {
  return T.Integer({ minimum: 0, maximum: 253_402_300_799, description });
}
