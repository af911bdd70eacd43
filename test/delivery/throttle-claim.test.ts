import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { claimDueDeliveries } from "../../src/delivery/claim.ts";
import { createDeliveryThrottle, type DeliveryThrottle } from "../../src/delivery/throttle.ts";
import { manualClock } from "../support/clock.ts";
import { type Engine, openEngine } from "./fixtures.ts";
import { setDefaultEndpoint } from "../support/endpoints.ts";

// The claim under a webhook's delivery rate limit (docs/webhooks.md), on a clock the test
// moves: what goes now, what waits for which slot, and what a stall does to the schedule.

const start = Date.UTC(2026, 10, 21, 12, 0, 0);
const clock = manualClock(start);
let engine: Engine;
let throttle: DeliveryThrottle;

beforeEach(async () => {
  clock.set(start);
  engine = await openEngine({ clock, config: { billing: { enabled: false } } });
  throttle = createDeliveryThrottle({ budget: null });
});
afterEach(async () => {
  await engine.close();
});

const claim = (limit = 64) => claimDueDeliveries(engine.ctx.db, { nowMs: clock.now(), leaseMs: 60_000, limit, priceOf: () => 0, throttle, defaultMaxRps: 0 });

/** A rate-limited account with `n` deliveries queued a millisecond apart, oldest first. */
async function backlog(maxRps: number, n: number) {
  const acct = await engine.account({ url: "http://r/" });
  await setDefaultEndpoint(engine.ctx.db, acct.id, { maxRps });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push(await engine.queue(acct.id));
    clock.advance(1);
  }
  return { acct, ids };
}

const waiting = (accountId: string) =>
  engine.ctx.db
    .selectFrom("deliveries")
    .select(["id", "next_attempt_at", "lease_until"])
    .where("account_id", "=", accountId)
    .where("status", "=", "pending")
    .orderBy("next_attempt_at")
    .execute();

describe("claiming for a webhook limited to 10 deliveries a second", () => {
  test("takes the one whose slot is now; the others wait, leased until their slots, 100 ms apart in queue order", async () => {
    const { acct, ids } = await backlog(10, 5);
    const { claimed, more } = await claim();
    expect(claimed.map((d) => d.id)).toEqual([ids[0]]);
    expect(more).toBe(false);
    const rows = (await waiting(acct.id)).filter((r) => r.id !== ids[0]);
    expect(rows.map((r) => r.id)).toEqual(ids.slice(1));
    const first = rows[0].next_attempt_at;
    expect(rows.map((r) => r.next_attempt_at - first)).toEqual([0, 100, 200, 300]);
    for (const r of rows) expect(r.lease_until).toBe(r.next_attempt_at);
    expect(first).toBeGreaterThan(clock.now());
  });

  test("a waiting row is taken once its slot is past, without asking the limit again", async () => {
    const { acct, ids } = await backlog(10, 3);
    await claim();
    const [next] = (await waiting(acct.id)).filter((r) => r.id !== ids[0]);
    clock.set(next.next_attempt_at);
    expect((await claim()).claimed).toEqual([]);
    clock.advance(1);
    expect((await claim()).claimed.map((d) => d.id)).toEqual([ids[1]]);
  });

  test("full batches of one limited account are pushed aside, claim after claim, until other accounts' rows come up", async () => {
    const { ids } = await backlog(10, 8);
    const other = await engine.account({ url: "http://o/" });
    const theirs = await engine.queue(other.id);
    const claims = [];
    for (let more = true; more; ) {
      const c = await claim(4);
      claims.push(c.claimed.map((d) => d.id));
      more = c.more;
    }
    expect(claims).toEqual([[ids[0]], [], [theirs]]);
  });

  test("after a stall, the schedule moves on whole: no burst of the slots that went by, the order kept", async () => {
    const { acct, ids } = await backlog(10, 6);
    await claim();
    clock.advance(5_000);
    // Every slot went by: none is sent late; the oldest is due again now, the rest 100 ms apart.
    const stalled = await claim();
    expect(stalled.claimed).toEqual([]);
    const rows = (await waiting(acct.id)).filter((r) => r.id !== ids[0]);
    expect(rows.map((r) => r.id)).toEqual(ids.slice(1));
    expect(rows.map((r) => r.next_attempt_at - clock.now())).toEqual([0, 100, 200, 300, 400]);
    clock.advance(1);
    expect((await claim()).claimed.map((d) => d.id)).toEqual([ids[1]]);
    // A new delivery queues behind the moved schedule.
    const fresh = await engine.queue(acct.id);
    await claim();
    const after = await waiting(acct.id);
    const last = after[after.length - 1];
    expect(last.id).toBe(fresh);
    expect(last.next_attempt_at - rows[4].next_attempt_at).toBeGreaterThan(0);
    expect(last.next_attempt_at - rows[4].next_attempt_at).toBeLessThanOrEqual(100);
  });

  test("an account without a limit, or with 0, is claimed as before", async () => {
    const free = await engine.account({ url: "http://f/" });
    const ids = [await engine.queue(free.id), await engine.queue(free.id), await engine.queue(free.id)];
    expect((await claim()).claimed.map((d) => d.id)).toEqual(ids);
  });
});
