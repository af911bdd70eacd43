import { afterEach, beforeEach, expect, test } from "bun:test";
import { sql } from "kysely";
import { settleRetries } from "../../src/delivery/pass.ts";
import { jsonLogger } from "../../src/lib/log.ts";
import { manualClock } from "../support/clock.ts";
import { onPostgres } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { type Engine, openEngine, until } from "./fixtures.ts";

// A settlement (the transaction that records what the sends came to) rolled back by a real
// database error is committed again shortly after, without sending anything again: the fault is a
// trigger that refuses every attempt-log insert until the test drops it.

let sink: WebhookSink;
let engine: Engine | undefined;

beforeEach(() => {
  sink = startWebhookSink();
});
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  await sink.stop();
});

/** Makes every settlement fail with a database error (a trigger) until `heal` drops it. */
async function refuseSettlements(engine: Engine): Promise<{ heal(): Promise<void> }> {
  const { db } = engine.ctx;
  if (onPostgres) {
    await sql`create function refuse_attempt() returns trigger language plpgsql as $$ begin raise exception 'settlement refused by the test'; end $$`.execute(db);
    await sql`create trigger refuse_attempt before insert on delivery_attempts for each row execute function refuse_attempt()`.execute(db);
    return { heal: async () => void (await sql`drop trigger refuse_attempt on delivery_attempts`.execute(db)) };
  }
  await sql`create trigger refuse_attempt before insert on delivery_attempts begin select raise(abort, 'settlement refused by the test'); end`.execute(db);
  return { heal: async () => void (await sql`drop trigger refuse_attempt`.execute(db)) };
}

test("a settlement rolled back by a database error is recorded shortly after, and no webhook is sent twice", async () => {
  const lines: { level: string; msg: string }[] = [];
  engine = await openEngine({
    // The lease is the default minute: without the retry the rows would wait that long, then be sent again.
    config: { delivery: { backoff_seconds: [0], max_attempts: 3 }, billing: { enabled: false } },
    log: jsonLogger((l) => lines.push(JSON.parse(l)), Date.now, "debug"),
  });
  const acct = await engine.account({ url: sink.url });
  const fault = await refuseSettlements(engine);
  const ids = await Promise.all([1, 2, 3, 4, 5].map(() => engine!.queue(acct.id)));

  engine.loop.wake();
  await sink.waitFor(ids.length);
  await until(async () => lines.filter((l) => l.msg === "delivery outcomes not recorded / claim failed").length, (n) => n >= 1);
  await fault.heal();

  const rows = await until(
    () => engine!.ctx.db.selectFrom("deliveries").select(["id", "status", "attempts", "lease_until"]).where("id", "in", ids).execute(),
    (rs) => rs.every((r) => r.status === "succeeded"),
  );
  await engine.loop.idle();
  expect(rows.map((r) => [r.attempts, r.lease_until])).toEqual(ids.map(() => [1, null]));
  // Each webhook reached the receiver once, and each attempt is logged once.
  expect(sink.received.length).toBe(ids.length);
  expect(new Set(sink.received.map((r) => r.headers["x-webhook-id"]))).toEqual(new Set(ids));
  for (const id of ids) expect((await engine.attempts(id)).length).toBe(1);
  expect(lines.some((l) => l.msg === "delivery outcomes recorded after a failed commit")).toBe(true);
  expect(lines.some((l) => l.msg.startsWith("delivery outcomes not recorded; their rows go out again"))).toBe(false);
});

test("the pauses between tries double from 100 ms to 5 s and add up to at most half the lease", () => {
  const pauses = settleRetries(60_000);
  expect(pauses.slice(0, 7)).toEqual([100, 200, 400, 800, 1600, 3200, 5000]);
  expect(pauses.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(30_000);
  expect(pauses.reduce((a, b) => a + b, 0)).toBeGreaterThan(25_000);
  expect(settleRetries(2_000)).toEqual([100, 200, 400]);
  expect(settleRetries(100)).toEqual([]);
});

test("a wall clock stepped an hour forward never sends a row the loop still holds a second time", async () => {
  const clock = manualClock();
  engine = await openEngine({ clock, config: { delivery: { backoff_seconds: [0], max_attempts: 3 }, billing: { enabled: false } } });
  const acct = await engine.account({ url: sink.url });
  const waiting: (() => void)[] = [];
  sink.respond(() => new Promise<Response>((resolve) => waiting.push(() => resolve(new Response("ok")))));
  const first = await Promise.all([1, 2, 3].map(() => engine!.queue(acct.id)));
  engine.loop.wake();
  await sink.waitFor(first.length);

  // Their leases (a minute, by the wall clock) are long past once it jumps: a claim finds them due.
  clock.set(clock.now() + 3_600_000);
  const later = await engine.queue(acct.id);
  engine.loop.wake();
  await sink.waitFor(first.length + 1);
  sink.respond(() => new Response("ok"));
  for (const release of waiting.splice(0)) release();

  const ids = [...first, later];
  await until(
    () => engine!.ctx.db.selectFrom("deliveries").select("status").where("id", "in", ids).execute(),
    (rs) => rs.every((r) => r.status === "succeeded"),
  );
  await engine.loop.idle();
  expect(sink.received.map((r) => r.headers["x-webhook-id"]).sort()).toEqual([...ids].sort());
  for (const id of ids) expect((await engine.attempts(id)).length).toBe(1);
});
