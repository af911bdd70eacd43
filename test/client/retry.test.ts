import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ChainwatchError, createClient, type FetchLike } from "chainwatch/client";
import { manualClock } from "../support/clock.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";

// A daemon allowing one request a second per key, on a clock held still: the window slides only
// when a test moves the clock. The SDK signs with the same clock and waits through a sleep that
// moves it, so "waited as long as Retry-After said" is exact and nothing depends on real time.
const clock = manualClock();
let td: TestDaemon;

beforeAll(async () => {
  td = await startTestDaemon({ clock, config: { rate_limit: { per_key_rps: 1 } } });
});
afterAll(async () => {
  await td.stop();
});

type Attempt = { method: string; status: number; timestamp: string; signature: string; body: string | undefined };

/** An SDK client whose every attempt and every wait is recorded; `advance` says whether a wait moves the daemon's clock. */
function recordingClient(c: TestClient, opts: { maxRetries?: number; advance?: boolean } = {}) {
  const attempts: Attempt[] = [];
  const waits: number[] = [];
  const recordingFetch: FetchLike = async (url, init) => {
    const res = await fetch(url, init);
    const headers = init.headers as Record<string, string>;
    attempts.push({ method: init.method ?? "GET", status: res.status, timestamp: headers["X-Timestamp"], signature: headers["X-Signature"], body: init.body as string | undefined });
    return res;
  };
  const client = createClient({
    baseUrl: td.url,
    apiKey: c.apiKey,
    secret: c.secret,
    maxRetries: opts.maxRetries,
    fetch: recordingFetch,
    now: clock.now,
    sleep: async (ms) => {
      waits.push(ms);
      if (opts.advance !== false) clock.advance(ms);
    },
  });
  return { client, attempts, waits };
}

describe("a request answered 429 Rate limit exceeded", () => {
  test("is retried once Retry-After (1 s) has passed, signed anew, and answers the retry's result", async () => {
    const c = await td.client();
    const { client, attempts, waits } = recordingClient(c);
    const first = await client.getAccount();
    const second = await client.getAccount();
    expect(second).toEqual(first);
    expect(attempts.map((a) => a.status)).toEqual([200, 429, 200]);
    expect(waits).toEqual([1000]);
    // The retry carries a fresh timestamp, one second on, and so a new signature.
    expect(Number(attempts[2].timestamp) - Number(attempts[1].timestamp)).toBe(1);
    expect(attempts[2].signature).not.toBe(attempts[1].signature);
  });

  test("a POST is retried with the same body bytes and does its work once", async () => {
    const c = await td.client();
    const { client, attempts, waits } = recordingClient(c);
    await client.getAccount();
    const watch = await client.addWatch({ network_slug: "eth", address: "0x00000000000000000000000000000000000000c1" });
    expect(watch.address).toBe("0x00000000000000000000000000000000000000c1");
    expect(attempts.map((a) => [a.method, a.status])).toEqual([
      ["GET", 200],
      ["POST", 429],
      ["POST", 201],
    ]);
    expect(attempts[1].body).toBe('{"network_slug":"eth","address":"0x00000000000000000000000000000000000000c1"}');
    expect(attempts[2].body).toBe(attempts[1].body);
    expect(waits).toEqual([1000]);
    clock.advance(1000);
    expect(await client.listWatches()).toEqual({ addresses: [watch] });
  });

  test("gives up after maxRetries (default 2) with the last 429 as a ChainwatchError carrying retryAfter", async () => {
    const c = await td.client();
    // The waits do not move the clock: the window never slides, every retry is refused.
    const { client, attempts, waits } = recordingClient(c, { advance: false });
    await client.getAccount();
    const error = await client.getAccount().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainwatchError);
    const e = error as ChainwatchError;
    expect({ status: e.status, error: e.error, retryAfter: e.retryAfter }).toEqual({ status: 429, error: "Rate limit exceeded.", retryAfter: 1 });
    expect(attempts.map((a) => a.status)).toEqual([200, 429, 429, 429]);
    expect(waits).toEqual([1000, 1000]);
    clock.advance(1000);
  });

  test("with maxRetries 0 is not retried", async () => {
    const c = await td.client();
    const { client, attempts, waits } = recordingClient(c, { maxRetries: 0 });
    await client.getAccount();
    const e = (await client.getAccount().catch((x: unknown) => x)) as ChainwatchError;
    expect([e.status, e.retryAfter]).toEqual([429, 1]);
    expect(attempts.map((a) => a.status)).toEqual([200, 429]);
    expect(waits).toEqual([]);
    clock.advance(1000);
  });

  test("other refusals are never retried", async () => {
    const c = await td.client();
    const { client, attempts, waits } = recordingClient(c);
    const e = (await client.getPayment("pay_missing").catch((x: unknown) => x)) as ChainwatchError;
    expect([e.status, e.error]).toEqual([404, "Payment not found."]);
    expect(attempts.map((a) => a.status)).toEqual([404]);
    expect(waits).toEqual([]);
    clock.advance(1000);
  });
});
