import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { createAccount } from "../../src/accounts/accounts.ts";
import { chargeDeliveries } from "../../src/billing/charges.ts";
import { addUsage, recordUsage } from "../../src/billing/usage.ts";
import type { Context } from "../../src/daemon.ts";
import type { Payment } from "../../src/db/schema.ts";
import { lockAccount } from "../../src/db/primitives.ts";
import { utcDay } from "../../src/lib/time.ts";
import { type NewNotice, raiseOnce } from "../../src/notices/notices.ts";
import { saveOrder } from "../../src/payments/orders.ts";
import { manualClock } from "../support/clock.ts";
import { until } from "../support/poll.ts";
import { onPostgres, postgresOnly } from "../support/postgres-only.ts";
import { openScratchContext, type ScratchContext } from "../support/scratch-context.ts";

// Several daemons on PostgreSQL lock an account's row to take one account's checks and charges one
// at a time. Those locks must not hold up the foreign key checks of other transactions that write
// rows naming the account: an ingest counts its events in the account's usage row and then saves
// an order, and the order's second save checks its account (its row version is the transaction's
// own). A settlement that had locked the account and then waited for the same usage row made a
// deadlock: PostgreSQL ended the ingest, which answered 500. Rows several transactions add to
// (each account's usage of the day, its open notice of a kind) are taken in one order for the same
// reason.

const clock = manualClock();
let scratch: ScratchContext;
let ctx: Context;
let accountId: string;
let order: Payment;

beforeEach(async () => {
  // Hooks run even when every test of the file is skipped: nothing to open on SQLite.
  if (!onPostgres) return;
  scratch = await openScratchContext("account-locks", clock);
  ctx = scratch.ctx;
  const a = await createAccount(ctx, { name: "locks", credits: 100 });
  if (!a.ok) throw new Error(a.error);
  accountId = a.account.id;
  order = {
    id: "pay_locks",
    account_id: accountId,
    order_id: "o-locks",
    network: "eth",
    address: "0x3333333333333333333333333333333333333333",
    asset: null,
    decimals: 18,
    amount_raw: "1000",
    received_raw: "0",
    confirmed_raw: "0",
    status: "pending",
    tx_hash: null,
    expires_at: clock.now() + 3_600_000,
    aml: null,
    created_at: clock.now(),
    updated_at: clock.now(),
    wallet_id: null,
    derivation_index: null,
    checkout_token: "locks-token",
    checkout_key: "locks-key",
    description: null,
    redirect_url: null,
  };
  await ctx.db.insertInto("payments").values(order).execute();
});
afterEach(async () => {
  await scratch?.close();
});

/** Whether a statement starting with `prefix` waits for a row lock in this database. */
async function waitsForLock(prefix: string): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
    where datname = current_database() and wait_event_type = 'Lock' and query like ${`${prefix}%`}`.execute(ctx.db);
  return rows[0].n > 0;
}

/** The order saved twice in `trx`: the second save's row version is the transaction's own, so it checks the account. */
async function saveTwice(trx: Parameters<typeof saveOrder>[0]) {
  await saveOrder(trx, { ...order, status: "seen", received_raw: "1000", updated_at: clock.now() });
  await saveOrder(trx, { ...order, status: "aml_check", received_raw: "1000", confirmed_raw: "1000", updated_at: clock.now() });
}

describe.skipIf(!onPostgres)(postgresOnly("an account's lock and the rows that name it"), () => {
  test(
    "a settlement charging the account and an ingest that counted usage and saves an order both commit",
    async () => {
      const now = clock.now();
      // Today's usage row exists already, as it does after the day's first event: the ingest's count updates it.
      await recordUsage(ctx.db, accountId, now, { events: 1 });
      let settlement: Promise<void> | undefined;
      await ctx.db.transaction().execute(async (ingest) => {
        await recordUsage(ingest, accountId, now, { events: 2 });
        // The settlement locks the account, charges it, and waits for the usage row the ingest holds.
        settlement = ctx.db.transaction().execute((settle) => chargeDeliveries(settle, [[accountId, { credits: 3, deliveries: 1 }]], now));
        await until(() => waitsForLock("insert into usage_daily"), (waits) => waits);
        await saveTwice(ingest);
      });
      await settlement;
      const account = await ctx.db.selectFrom("accounts").select("credits").where("id", "=", accountId).executeTakeFirstOrThrow();
      expect(Number(account.credits)).toBe(97);
      const usage = await ctx.db.selectFrom("usage_daily").select(["day", "credits", "deliveries", "events"]).where("account_id", "=", accountId).execute();
      expect(usage.map((u) => ({ ...u, credits: Number(u.credits) }))).toEqual([{ day: utcDay(now), credits: 3, deliveries: 1, events: 3 }]);
      const saved = await ctx.db.selectFrom("payments").select(["status", "confirmed_raw"]).where("id", "=", order.id).executeTakeFirstOrThrow();
      expect(saved).toEqual({ status: "aml_check", confirmed_raw: "1000" });
    },
  );

  test("usage rows of several accounts are taken in account id order, whatever order they are given in", async () => {
    const b = await createAccount(ctx, { name: "locks-b", credits: 100 });
    if (!b.ok) throw new Error(b.error);
    const [first, second] = [accountId, b.account.id].sort();
    const now = clock.now();
    for (const id of [first, second]) await recordUsage(ctx.db, id, now, { events: 1 });
    // A settlement takes the two rows in id order, one statement at a time here so the test can
    // stand between them: it holds the first row while the ingest adds to both, given in the other order.
    let ingest: Promise<void> | undefined;
    await ctx.db.transaction().execute(async (settle) => {
      await recordUsage(settle, first, now, { deliveries: 1 });
      ingest = ctx.db.transaction().execute((trx) => addUsage(trx, now, new Map([[second, { events: 1 }], [first, { events: 1 }]])));
      await until(() => waitsForLock("insert into usage_daily"), (waits) => waits);
      await recordUsage(settle, second, now, { deliveries: 1 });
    });
    await ingest;
    const rows = await ctx.db.selectFrom("usage_daily").select(["account_id", "deliveries", "events"]).orderBy("account_id").execute();
    expect(rows).toEqual([
      { account_id: first, deliveries: 1, events: 2 },
      { account_id: second, deliveries: 1, events: 2 },
    ]);
  });

  test("notices raised once for several accounts are written in account id order, whatever order they are given in", async () => {
    const b = await createAccount(ctx, { name: "locks-b", credits: 100 });
    if (!b.ok) throw new Error(b.error);
    const [first, second] = [accountId, b.account.id].sort();
    const notice = (id: string): NewNotice => ({ accountId: id, type: "credits_exhausted", message: "held", deliveryId: null, createdAt: clock.now() });
    // One daemon's claim raises the first account's notice and then the second's; another daemon's
    // raises both at once, given in the other order. The second waits for the first's rows.
    let other: Promise<NewNotice[]> | undefined;
    const mine = await ctx.db.transaction().execute(async (trx) => {
      const raised = await raiseOnce(trx, [notice(first)]);
      other = ctx.db.transaction().execute((o) => raiseOnce(o, [notice(second), notice(first)]));
      await until(() => waitsForLock("insert into \"notices\""), (waits) => waits);
      return [...raised, ...(await raiseOnce(trx, [notice(second)]))];
    });
    expect(mine.map((n) => n.accountId)).toEqual([first, second]);
    expect(await other).toEqual([]);
    const open = await ctx.db.selectFrom("notices").select("account_id").where("type", "=", "credits_exhausted").orderBy("account_id").execute();
    expect(open.map((n) => n.account_id)).toEqual([first, second]);
  });

  test("an account locked for a check does not hold up another transaction saving its order", async () => {
    let saved = false;
    await ctx.db.transaction().execute(async (check) => {
      await lockAccount(check, accountId);
      const other = ctx.db.transaction().execute(async (trx) => {
        await saveTwice(trx);
        saved = true;
      });
      // Held until the other transaction is done: a lock that held up its check would hold it up to the end.
      await until(async () => saved, (done) => done, 5_000);
      await other;
    });
    expect((await ctx.db.selectFrom("payments").select("status").where("id", "=", order.id).executeTakeFirstOrThrow()).status).toBe("aml_check");
  });
});
