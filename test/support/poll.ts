// The suite's one way to wait for something the daemon does on its own schedule: read, check,
// read again shortly after. It waits on an outcome and never asserts how long that took; the
// deadline only turns a condition that never comes into a failure instead of a hung test.

export type PollOptions = {
  /** Give up (throwing, with the last value read) after this long. Default 10 s. */
  timeoutMs?: number;
  /** Pause between reads. Default 20 ms; more where each read costs something (a rate-limited key). */
  everyMs?: number;
};

/** Reads until `check` holds and returns that value; throws after the deadline. A number is the deadline in ms. */
export async function until<T>(read: () => Promise<T>, check: (v: T) => boolean, opts: PollOptions | number = {}): Promise<T> {
  const { timeoutMs = 20_000, everyMs = 20 } = typeof opts === "number" ? { timeoutMs: opts } : opts;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (check(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last read: ${describe(v)}`);
    await Bun.sleep(everyMs);
  }
}

/** Retries `attempt` until it returns a value (not undefined) and returns it; throws after the deadline. */
export async function eventually<T>(attempt: () => Promise<T | undefined>, opts: PollOptions | number = {}): Promise<T> {
  return (await until(attempt, (v) => v !== undefined, opts)) as T;
}

function describe(v: unknown): string {
  try {
    return JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? `${x}n` : x))?.slice(0, 2000) ?? String(v);
  } catch {
    return String(v);
  }
}
