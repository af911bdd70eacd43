import { afterAll, beforeAll, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Transaction } from "kysely";
import { createAccount } from "../../src/accounts/accounts.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import type { DB } from "../../src/db/schema.ts";
import { deliveriesWithBodies, enqueueDelivery } from "../../src/delivery/outbox.ts";
import { recordOutcomes, type Settlement } from "../../src/delivery/settle.ts";
import { utcDay } from "../../src/lib/time.ts";
import { testConfig } from "../support/harness.ts";
import { defaultEndpointId } from "../support/endpoints.ts";

// A settlement batch costs the same statements whether its deliveries belong to one account or to
// many: one charge and one usage upsert for all of its accounts (on PostgreSQL each statement is a
// round trip). Counted here on the transaction the batch runs in; the balances and usage rows show
// each account was charged exactly for its own deliveries.

let dir: string;
let ctx: Context;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-settle-batch-"));
  ctx = await openContext(testConfig(dir), { env: {} });
});

afterAll(async () => {
  await ctx.db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** The transaction as recordOutcomes sees it, counting the statements it runs. */
function counting(trx: Transaction<DB>): { trx: Transaction<DB>; statements: () => number } {
  let n = 0;
  const proxy = new Proxy(trx, {
    get(target, key) {
      if (key === "executeQuery") return (q: Parameters<Transaction<DB>["executeQuery"]>[0]) => (n++, target.executeQuery(q));
      const v = Reflect.get(target, key, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { trx: proxy, statements: () => n };
}

/** Settles `perAccount` successes for each of `accounts` new accounts in one batch; returns what it cost and left. */
async function settleBatch(accounts: number, perAccount: number, price: number) {
  const nowMs = Date.now();
  const ids: string[] = [];
  for (let i = 0; i < accounts; i++) {
    const made = await createAccount(ctx, { name: `batch-${accounts}-${i}`, credits: 1_000 });
    if (!made.ok) throw new Error(made.error);
    ids.push(made.account.id);
  }
  const queued: string[] = [];
  for (let k = 0; k < perAccount; k++)
    for (const accountId of ids) queued.push(await enqueueDelivery(ctx.db, { accountId, endpointId: await defaultEndpointId(ctx.db, accountId), kind: "event", eventType: "payment", network: "eth", body: "{}", nowMs }));
  const rows = await deliveriesWithBodies(ctx.db).where("id", "in", queued).execute();
  const attempt = { url: "http://127.0.0.1/hook", startedAt: nowMs, durationMs: 1, statusCode: 200, error: null, snippet: "ok" };
  const items: Settlement[] = rows.map((delivery) => ({ delivery, attempt, outcome: { ok: true, price } }));
  let statements = 0;
  const settled = await ctx.db.transaction().execute(async (trx) => {
    const c = counting(trx);
    const out = await recordOutcomes(c.trx, items, nowMs);
    statements = c.statements();
    return out;
  });
  const balances = await ctx.db.selectFrom("accounts").select(["id", "credits"]).where("id", "in", ids).orderBy("id").execute();
  const usage = await ctx.db
    .selectFrom("usage_daily")
    .select(["account_id", "credits", "deliveries"])
    .where("account_id", "in", ids)
    .where("day", "=", utcDay(nowMs))
    .orderBy("account_id")
    .execute();
  const attempts = await ctx.db.selectFrom("delivery_attempts").select("delivery_id").where("delivery_id", "in", queued).execute();
  return { ids: [...ids].sort(), settled: settled.size, statements, balances, usage, attempts: attempts.length };
}

it("a batch over several accounts charges each its own deliveries, in as many statements as a batch of one account", async () => {
  const one = await settleBatch(1, 3, 2);
  const many = await settleBatch(7, 3, 2);

  expect(many.settled).toBe(21);
  expect(many.attempts).toBe(21);
  expect(many.balances.map((b) => [b.id, Number(b.credits)])).toEqual(many.ids.map((id) => [id, 1_000 - 3 * 2]));
  expect(many.usage.map((u) => [u.account_id, Number(u.credits), Number(u.deliveries)])).toEqual(many.ids.map((id) => [id, 6, 3]));
  expect(one.balances.map((b) => Number(b.credits))).toEqual([994]);

  // Mark succeeded, log the attempts, charge, count usage: four statements either way.
  expect(one.statements).toBe(4);
  expect(many.statements).toBe(one.statements);
});

it("a second batch for the same accounts adds to their usage rows of the day", async () => {
  const first = await settleBatch(2, 1, 5);
  const nowMs = Date.now();
  const rows = await deliveriesWithBodies(ctx.db).where("account_id", "in", first.ids).execute();
  // The same rows again, as if re-sent after their lease: settled only while pending, so nothing changes.
  const attempt = { url: "http://127.0.0.1/hook", startedAt: nowMs, durationMs: 1, statusCode: 200, error: null, snippet: "ok" };
  const again = await recordOutcomes(ctx.db, rows.map((delivery) => ({ delivery, attempt, outcome: { ok: true, price: 5 } })), nowMs);
  expect(again.size).toBe(0);
  const balances = await ctx.db.selectFrom("accounts").select("credits").where("id", "in", first.ids).execute();
  expect(balances.map((b) => Number(b.credits))).toEqual([995, 995]);

  // New deliveries of those accounts: their usage rows of today grow.
  for (const accountId of first.ids) await enqueueDelivery(ctx.db, { accountId, endpointId: await defaultEndpointId(ctx.db, accountId), kind: "event", eventType: "payment", network: "eth", body: "{}", nowMs });
  const pending = await deliveriesWithBodies(ctx.db).where("account_id", "in", first.ids).where("status", "=", "pending").execute();
  expect(pending.length).toBe(2);
  const settled = await recordOutcomes(ctx.db, pending.map((delivery) => ({ delivery, attempt, outcome: { ok: true, price: 5 } })), nowMs);
  expect(settled.size).toBe(2);
  const usage = await ctx.db.selectFrom("usage_daily").select(["credits", "deliveries"]).where("account_id", "in", first.ids).where("day", "=", utcDay(nowMs)).execute();
  expect(usage.map((u) => [Number(u.credits), Number(u.deliveries)])).toEqual([
    [10, 2],
    [10, 2],
  ]);
});

it("the attempt log keeps each attempt as it was, whatever its text holds", async () => {
  const made = await createAccount(ctx, { name: "attempt-texts", credits: 1_000 });
  if (!made.ok) throw new Error(made.error);
  const accountId = made.account.id;
  const endpointId = await defaultEndpointId(ctx.db, accountId);
  const nowMs = Date.now();
  // Texts an array literal or a list of values could mangle: quotes, backslashes, braces, commas,
  // the word NULL, line breaks, characters outside ASCII; and the attempt's empty fields.
  const attempts = [
    { url: "http://127.0.0.1/hook?a={1,2}", startedAt: nowMs, durationMs: 3, statusCode: 200, error: null, snippet: 'say "hi", {x} \\ NULL' },
    { url: "http://127.0.0.1/hook", startedAt: nowMs + 1, durationMs: 0, statusCode: 204, error: null, snippet: "" },
    { url: "http://127.0.0.1/hook", startedAt: nowMs + 2, durationMs: 7, statusCode: 200, error: null, snippet: "NULL" },
    { url: "http://127.0.0.1/hook", startedAt: nowMs + 3, durationMs: 9, statusCode: 201, error: null, snippet: "line one\nline two\tand ünïcødé ✓" },
    { url: null, startedAt: nowMs + 4, durationMs: 0, statusCode: null, error: "no webhook URL", snippet: null },
  ];
  const queued: string[] = [];
  for (const _ of attempts) queued.push(await enqueueDelivery(ctx.db, { accountId, endpointId, kind: "event", eventType: "payment", network: "eth", body: "{}", nowMs }));
  const rows = await deliveriesWithBodies(ctx.db).where("id", "in", queued).orderBy("id").execute();
  const items: Settlement[] = rows.map((delivery, i) => ({
    delivery,
    attempt: attempts[i],
    outcome: attempts[i].error === null ? { ok: true, price: 1 } : { ok: false, next: { status: "pending", nextAttemptAt: nowMs + 60_000 } },
  }));
  expect((await recordOutcomes(ctx.db, items, nowMs)).size).toBe(attempts.length);
  const logged = await ctx.db
    .selectFrom("delivery_attempts")
    .select(["delivery_id", "attempt", "url", "started_at", "duration_ms", "status_code", "error", "response_snippet"])
    .where("delivery_id", "in", queued)
    .orderBy("delivery_id")
    .execute();
  expect(
    logged.map((r) => ({ ...r, started_at: Number(r.started_at), attempt: Number(r.attempt), duration_ms: Number(r.duration_ms), status_code: r.status_code === null ? null : Number(r.status_code) })),
  ).toEqual(
    rows.map((d, i) => ({
      delivery_id: d.id,
      attempt: 1,
      url: attempts[i].url,
      started_at: attempts[i].startedAt,
      duration_ms: attempts[i].durationMs,
      status_code: attempts[i].statusCode,
      error: attempts[i].error,
      response_snippet: attempts[i].snippet,
    })),
  );
});
