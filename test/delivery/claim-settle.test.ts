import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { retryDelivery } from "../../src/delivery/admin.ts";
import { claimDueDeliveries, releaseLeases } from "../../src/delivery/claim.ts";
import { recordOutcomes, type Settlement } from "../../src/delivery/settle.ts";
import { manualClock } from "../support/clock.ts";
import { type Engine, openEngine } from "./fixtures.ts";

const clock = manualClock();
let engine: Engine;

beforeEach(async () => {
  engine = await openEngine({ clock, config: { billing: { enabled: true } } });
});
afterEach(async () => {
  await engine.close();
});

const claim = (limit = 10, price = 0) =>
  claimDueDeliveries(engine.ctx.db, { nowMs: clock.now(), leaseMs: 60_000, limit, priceOf: () => price });
const ok = (attempt = {}): Settlement["attempt"] => ({ url: "http://r/", startedAt: clock.now(), durationMs: 3, statusCode: 200, error: null, snippet: "ok", ...attempt });

describe("claiming, settling and retrying deliveries", () => {
  test("a claimed row is leased and not claimed again until the lease runs out", async () => {
    const acct = await engine.account({ url: "http://r/" });
    const id = await engine.queue(acct.id);
    expect((await claim()).claimed.map((d) => d.id)).toEqual([id]);
    expect((await engine.delivery(id)).lease_until).toBe(clock.now() + 60_000);
    expect((await claim()).claimed).toEqual([]);
    clock.advance(60_001);
    expect((await claim()).claimed.map((d) => d.id)).toEqual([id]);
  });

  test("behind an old backlog, another account's new row is claimed too, marked as found by the look at the newest rows", async () => {
    const backlog = await engine.account({ url: "http://r/" });
    const other = await engine.account({ url: "http://r/" });
    for (let i = 0; i < 12; i++) await engine.queue(backlog.id);
    // The backlog has been due for a second when the other account's row is queued.
    clock.advance(1_000);
    const fresh = await engine.queue(other.id);
    const { claimed, lookedNewest } = await claim(8);
    expect(lookedNewest).toBe(true);
    expect(claimed.length).toBe(8);
    expect(claimed.filter((d) => d.newest).map((d) => d.id)).toEqual([fresh]);
    expect(claimed.filter((d) => !d.newest).every((d) => d.account_id === backlog.id)).toBe(true);
  });

  test("claims no more than the limit, oldest due first", async () => {
    const acct = await engine.account({ url: "http://r/" });
    const first = await engine.queue(acct.id);
    clock.advance(1);
    const second = await engine.queue(acct.id);
    clock.advance(1);
    await engine.queue(acct.id);
    expect((await claim(2)).claimed.map((d) => d.id)).toEqual([first, second]);
  });

  test("a claimed row carries its endpoint's current route and the price it will cost; a payments URL row, the default endpoint's secret", async () => {
    const acct = await engine.account({ url: "http://r/", paymentsUrl: "http://p/", credits: 100 });
    const event = await engine.queue(acct.id);
    const payment = await engine.queue(acct.id, { kind: "payment", eventType: "payment_order", paymentId: "pay_1", sequence: 1 });
    const claimed = (await claim(10, 7)).claimed;
    const secret = (await engine.ctx.db.selectFrom("webhook_endpoints").select("secret_enc").where("id", "=", acct.endpointId).executeTakeFirstOrThrow()).secret_enc;
    expect(claimed.find((d) => d.id === event)?.route).toEqual({
      endpointId: acct.endpointId,
      url: "http://r/",
      enabled: true,
      secretEnc: secret,
      previousSecretEnc: null,
      previousSecretExpiresAt: null,
    });
    expect(claimed.find((d) => d.id === payment)?.route).toMatchObject({ endpointId: null, url: "http://p/", enabled: true, secretEnc: secret });
    expect(claimed.every((d) => d.price === 7)).toBe(true);
  });

  test("recording settles a row only while it is pending: nothing is logged or billed twice", async () => {
    const acct = await engine.account({ url: "http://r/", credits: 100 });
    const id = await engine.queue(acct.id);
    const [d] = (await claim(10, 7)).claimed;
    const settlement: Settlement = { delivery: d, attempt: ok(), outcome: { ok: true, price: 7 } };
    expect(await recordOutcomes(engine.ctx.db, [settlement], clock.now())).toEqual(new Set([id]));
    expect(await recordOutcomes(engine.ctx.db, [settlement], clock.now())).toEqual(new Set());
    expect(await engine.attempts(id)).toHaveLength(1);
    const a = await engine.ctx.db.selectFrom("accounts").select("credits").where("id", "=", acct.id).executeTakeFirstOrThrow();
    expect(Number(a.credits)).toBe(93);
  });

  test("queued ids keep the dlv_ shape and sort in the order they were made", async () => {
    const acct = await engine.account({ url: "http://r/" });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await engine.queue(acct.id));
    for (const id of ids) expect(id).toMatch(/^dlv_[0-9a-f]{24}$/);
    expect([...ids].sort()).toEqual(ids);
  });

  test("recording and claiming compose into the caller's transaction: a payment's next webhook is claimable at once", async () => {
    const acct = await engine.account({ url: "http://r/" });
    const first = await engine.queue(acct.id, { kind: "payment", eventType: "payment_order", paymentId: "pay_1", sequence: 1 });
    const second = await engine.queue(acct.id, { kind: "payment", eventType: "payment_order", paymentId: "pay_1", sequence: 2 });
    const [d] = (await claim()).claimed;
    expect(d.id).toBe(first);
    const next = await engine.ctx.db.transaction().execute(async (trx) => {
      await recordOutcomes(trx, [{ delivery: d, attempt: ok(), outcome: { ok: true, price: 0 } }], clock.now());
      return claimDueDeliveries(trx, { nowMs: clock.now(), leaseMs: 60_000, limit: 10, priceOf: () => 0 });
    });
    expect(next.claimed.map((c) => c.id)).toEqual([second]);
    expect((await engine.delivery(first)).status).toBe("succeeded");
  });

  test("a lease given back makes the row claimable at once, but a lease taken since is left alone", async () => {
    const acct = await engine.account({ url: "http://r/" });
    const id = await engine.queue(acct.id);
    const [d] = (await claim()).claimed;
    await releaseLeases(engine.ctx.db, [d]);
    expect((await engine.delivery(id)).lease_until).toBeNull();
    clock.advance(1);
    const [again] = (await claim()).claimed;
    expect(again.id).toBe(id);
    await releaseLeases(engine.ctx.db, [d]);
    expect((await engine.delivery(id)).lease_until).toBe(again.lease_until);
  });

  test("retry re-queues a failed delivery with a fresh attempt budget", async () => {
    const acct = await engine.account({ url: "http://r/" });
    const id = await engine.queue(acct.id);
    const [d] = (await claim()).claimed;
    await recordOutcomes(
      engine.ctx.db,
      [{ delivery: d, attempt: ok({ statusCode: 500, error: "http 500" }), outcome: { ok: false, next: { status: "failed", nextAttemptAt: clock.now() } } }],
      clock.now(),
    );
    clock.advance(5_000);
    const r = await retryDelivery(engine.ctx.db, id, clock.now());
    expect(r.ok).toBe(true);
    expect(await engine.delivery(id)).toMatchObject({ status: "pending", attempts: 0, next_attempt_at: clock.now(), lease_until: null, completed_at: null, last_error: "http 500" });
  });

  test("retry also re-queues a paused delivery, which pauses again if credits are still short", async () => {
    const acct = await engine.account({ url: "http://r/", credits: 0 });
    const id = await engine.queue(acct.id);
    expect((await claim(10, 7)).paused).toEqual([id]);
    expect((await retryDelivery(engine.ctx.db, id, clock.now())).ok).toBe(true);
    expect((await engine.delivery(id)).status).toBe("pending");
    expect((await claim(10, 7)).paused).toEqual([id]);
  });

  test("retry refuses a delivery that already succeeded and an unknown id", async () => {
    const acct = await engine.account({ url: "http://r/" });
    const id = await engine.queue(acct.id);
    const [d] = (await claim()).claimed;
    await recordOutcomes(engine.ctx.db, [{ delivery: d, attempt: ok(), outcome: { ok: true, price: 0 } }], clock.now());
    expect(await retryDelivery(engine.ctx.db, id, clock.now())).toEqual({ ok: false, code: "DELIVERY_SUCCEEDED", error: `delivery ${id} already succeeded` });
    expect(await retryDelivery(engine.ctx.db, "dlv_nope", clock.now())).toEqual({ ok: false, code: "DELIVERY_NOT_FOUND", error: "no such delivery: dlv_nope" });
  });
});
