// Figures of several interleaved rounds: on two shared cores one run of a bench swings with
// whatever else runs, so a bench measures every side in turn, round after round, and reports each
// figure as its median with the spread around it.

/** The median of `xs` (the mean of the middle two for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** "41 (38–47)": the median and, with more than one round, the lowest and highest. */
export function spread(xs: readonly number[], digits = 0): string {
  const f = (x: number) => x.toFixed(digits);
  return xs.length > 1 ? `${f(median(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})` : f(xs[0]);
}

/** The median, lowest and highest of `xs`, for a bench's JSON line. */
export function summary(xs: readonly number[], digits = 3): { median: number; min: number; max: number; rounds: number[] } {
  const r = (x: number) => Number(x.toFixed(digits));
  return { median: r(median(xs)), min: r(Math.min(...xs)), max: r(Math.max(...xs)), rounds: xs.map(r) };
}
