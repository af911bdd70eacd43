import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { block, ingest, watchAndHook } from "./recovery-support.ts";
import { failedBacklog, medianGap, nextWholeSecond, perSecond, secondsOverLimit, sendOrderOf, sequenceOf } from "./throttle-support.ts";

// docs/webhooks.md, the delivery rate limit: a recovered backlog of a webhook limited to 20 a
// second arrives at 20 a second, oldest first, while another account's new webhooks go out as
// they come. A real daemon, real receivers and the real clock; counts per clock second at the
// receiver, never the timing of one request.

const RATE = 20;
const SECONDS = 5;
const BACKLOG = 400;
const W = "0x3333333333333333333333333333333333333333";

describe("a backlog recovered for a webhook limited to 20 deliveries a second", () => {
  let td: TestDaemon;
  let limited: WebhookSink;
  let other: WebhookSink;
  let a: TestClient;
  let b: TestClient;
  let start = 0;
  const blocksAt: number[] = [];

  beforeAll(async () => {
    td = await startTestDaemon({ config: { rate_limit: { per_key_rps: 1000 } } });
    limited = startWebhookSink();
    other = startWebhookSink();
    a = await td.client({ credits: 1_000_000_000 });
    b = await td.client({ credits: 1_000_000_000 });
    const put = await a.request("PUT", "/v1/address-watch/webhook", { url: limited.url, enabled: true, delivery: { max_rps: RATE } });
    expect(put.status).toBe(200);
    await watchAndHook(b, W, other.url, { block: false });
    const queuedAt = Date.now() - 3_600_000;
    await failedBacklog(td.ctx.db, a.accountId, BACKLOG, queuedAt);
    const recovered = await a.request("POST", "/v1/address-watch/webhook/recover", { since: Math.floor(queuedAt / 1000) });
    expect(await recovered.json()).toEqual({ requeued: BACKLOG, more: false });
    const [first] = await limited.waitFor(1);
    start = nextWholeSecond(first.at);
    // The other account's payments come while the backlog drains, 1.5 seconds apart.
    for (let height = 1; height <= 3; height++) {
      await Bun.sleep(Math.max(0, start + (height * 1500 - 1000) - Date.now()));
      blocksAt.push(Date.now());
      await ingest(td, block(height, [W]));
    }
    await Bun.sleep(Math.max(0, start + SECONDS * 1000 + 200 - Date.now()));
  }, 25_000);

  afterAll(async () => {
    await td.stop();
    await limited.stop();
    await other.stop();
  });

  test(`arrives at ${RATE} a second, never in a burst, counted in each of ${SECONDS} clock seconds`, () => {
    const counts = perSecond(limited.received, start, SECONDS);
    const total = counts.reduce((x, y) => x + y, 0);
    // The counts ride along, so a failure shows them. Never a burst: no clock second above the
    // limit, give or take a send a busy machine delayed into the next one or a short stall's
    // held-back sends (secondsOverLimit), and never more in all.
    expect({ counts, over: secondsOverLimit(counts, RATE) }).toEqual({ counts, over: [] });
    expect(total).toBeLessThanOrEqual(RATE * SECONDS * 1.1);
    // At the limit's pace: the typical gap between two arrivals is a slot, 50 ms. A machine that
    // stalls for a second lengthens a few gaps (the schedule then moves on whole instead of
    // catching up, rate-slots.ts), not the typical one, and a shorter stall's catch-up second is
    // left out (medianGap); a loop that missed its slots and sent them in bursts would make it
    // short, one that fell behind would make it long.
    const median = medianGap(limited.received, start, SECONDS, RATE);
    expect({ counts, median, paced: Math.abs(median - 1000 / RATE) <= 1000 / RATE / 10 }).toEqual({ counts, median, paced: true });
  });

  test("goes out oldest first, and arrives each once", async () => {
    // The order sent, from the delivery log (a send still in flight is not in it yet): each send
    // starts after every older one. Two sent at once (slots a loaded machine reached late
    // together) may reach the receiver in either order.
    const sent = await sendOrderOf(td.ctx.db, a.accountId);
    // Several seconds' worth, however slow the machine was.
    expect(sent.length).toBeGreaterThan(RATE * 2);
    expect(sent).toEqual(sent.toSorted((x, y) => x - y));
    const seen = sequenceOf(limited.received);
    expect(new Set(seen).size).toBe(seen.length);
  });

  test("the other account's payments are delivered while the backlog is still draining", async () => {
    const got = await other.waitFor(blocksAt.length);
    expect(got).toHaveLength(blocksAt.length);
    for (const r of got) {
      const sentBefore = limited.received.filter((x) => x.at <= r.at).length;
      // Queued after every row of the backlog, yet received with much of it still to come.
      expect(sentBefore).toBeLessThan(BACKLOG * 0.6);
      expect(limited.received.some((x) => x.at > r.at)).toBe(true);
    }
  });

  test("the backlog's deliveries not yet sent wait pending, each for its own slot", async () => {
    const rows = await td.ctx.db
      .selectFrom("deliveries")
      .select(["status", "next_attempt_at", "lease_until"])
      .where("account_id", "=", a.accountId)
      .where("status", "=", "pending")
      .orderBy("next_attempt_at")
      .execute();
    expect(rows.length).toBeGreaterThan(BACKLOG / 3);
    const waiting = rows.filter((r) => Number(r.next_attempt_at) > Date.now() + 1000);
    expect(waiting.length).toBeGreaterThan(0);
    for (const r of waiting) expect(Number(r.lease_until)).toBe(Number(r.next_attempt_at));
    // Slots of 50 ms: 20 in each second. Where a stall moved the schedule on whole (rate-slots.ts),
    // the moved slots meet the grid of the ones placed after them: that gap is shorter, yet no
    // clock second holds more than 20.
    const dues = waiting.map((r) => Number(r.next_attempt_at));
    const gaps = dues.slice(1).map((at, i) => at - dues[i]);
    const joints = gaps.filter((g) => g !== 50);
    expect({ joints, fit: joints.length <= 2 && joints.every((g) => g > 0 && g < 50) }).toEqual({ joints, fit: true });
    const perClockSecond = Map.groupBy(dues, (at) => Math.floor(at / 1000));
    expect([...perClockSecond.values()].filter((slots) => slots.length > RATE)).toEqual([]);
  });

  test("a new limit places the waiting deliveries again at the new rate", async () => {
    const left = BACKLOG - limited.received.length;
    const put = await a.request("PUT", "/v1/address-watch/webhook", { url: limited.url, enabled: true, delivery: { max_rps: 200 } });
    const changedAt = Date.now();
    expect(((await put.json()) as { delivery: unknown }).delivery).toEqual({ max_rps: 200 });
    await limited.waitFor(BACKLOG, 10_000);
    // What was left would have taken left / 20 seconds at the old limit.
    expect(limited.received[BACKLOG - 1].at - changedAt).toBeLessThan(((left / RATE) * 1000) / 2);
    expect(sequenceOf(limited.received).sort((x, y) => x - y)).toEqual(Array.from({ length: BACKLOG }, (_, i) => i));
  });
});
