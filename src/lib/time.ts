/** RFC 3339 with milliseconds and a numeric offset, always UTC: `2026-11-21T19:08:00.000+00:00`. */
export function rfc3339(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, -1)}+00:00`;
}

/** The UTC calendar day of an instant, `YYYY-MM-DD`. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The `count` UTC days ending with the day of `ms`, oldest first. */
export function lastUtcDays(ms: number, count: number): string[] {
  const today = Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth(), new Date(ms).getUTCDate());
  return Array.from({ length: count }, (_, i) => utcDay(today - (count - 1 - i) * 86_400_000));
}
