import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { listDeliveryPage } from "../../src/delivery/list-deliveries.ts";
import { manualClock } from "../support/clock.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { type Engine, openEngine } from "./fixtures.ts";

// The operator's walk through the outbox (`deliveries list`): pages newest first, each with the
// cursor of the next, views with attempt counts or logs, and the names of their accounts.
let sink: WebhookSink;
let engine: Engine;
const clock = manualClock(Date.UTC(2026, 10, 21, 12));

beforeEach(async () => {
  sink = startWebhookSink();
  engine = await openEngine({ clock, config: { billing: { enabled: false } } });
});
afterEach(async () => {
  await engine.close();
  await sink.stop();
});

/** Queues a delivery a second after the one before, so the listing order is the queueing order reversed. */
const queued = async (accountId: string) => {
  clock.advance(1000);
  return engine.queue(accountId);
};
const page = (q: Partial<Parameters<typeof listDeliveryPage>[1]> = {}) => listDeliveryPage(engine.ctx.db, { limit: 50, attemptLog: false, ...q });

describe("a page of the outbox", () => {
  test("newest first, a page at a time: each names where the next starts, the last names none", async () => {
    const a = await engine.account({ url: null });
    const b = await engine.account({ url: null });
    const [a1, b1, a2, a3] = [await queued(a.id), await queued(b.id), await queued(a.id), await queued(a.id)];
    const first = await page({ limit: 2 });
    if (!first.ok) throw new Error(first.error);
    expect([first.deliveries.map((d) => d.id), first.nextCursor]).toEqual([[a3, a2], a2]);
    const second = await page({ limit: 2, cursor: a2 });
    if (!second.ok) throw new Error(second.error);
    expect([second.deliveries.map((d) => d.id), second.nextCursor]).toEqual([[b1, a1], null]);
    // The names of the page's accounts, for a table that shows names.
    const names = await engine.ctx.db.selectFrom("accounts").select(["id", "name"]).orderBy("id").execute();
    expect(second.accountNames).toEqual(new Map(names.map((r) => [r.id, r.name])));
    const onlyA = await page({ accountId: a.id, limit: 1, cursor: a3 });
    expect(onlyA.ok && [onlyA.deliveries.map((d) => d.id), onlyA.nextCursor]).toEqual([[a2], a2]);
  });

  test("a cursor that names no delivery is DELIVERY_NOT_FOUND", async () => {
    expect(await page({ cursor: "dlv_nope" })).toEqual({ ok: false, code: "DELIVERY_NOT_FOUND", error: "no such delivery: dlv_nope" });
  });

  test("each view counts the logged attempts; with attemptLog it carries the log too", async () => {
    const a = await engine.account({ url: sink.url });
    const id = await queued(a.id);
    await engine.run();
    await sink.waitFor(1);
    const counted = await page();
    expect(counted.ok && counted.deliveries.map((d) => [d.id, d.status, d.attempts, "attempt_log" in d])).toEqual([[id, "succeeded", 1, false]]);
    const logged = await page({ attemptLog: true });
    if (!logged.ok) throw new Error(logged.error);
    expect(logged.deliveries[0]).toMatchObject({ id, attempts: 1, attempt_log: [{ attempt: 1, url: sink.url, status_code: 200 }] });
  });
});
