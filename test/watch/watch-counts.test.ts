import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createAccount } from "../../src/accounts/accounts.ts";
import { setPlan } from "../../src/accounts/plans.ts";
import type { Context } from "../../src/daemon.ts";
import { purgeAccountWatches } from "../../src/watch/purge-account.ts";
import { addWatch, addWatches, deleteWatch, deleteWatches, listWatches, slotsUsed } from "../../src/watch/watches.ts";
import { manualClock } from "../support/clock.ts";
import { openScratchContext, type ScratchContext } from "../support/scratch-context.ts";

// Every writer of `watches` keeps the account's count in `watch_counts` in the same transaction,
// so a slot check and GET /v1/account read one row instead of counting every watch. Through
// every way watches come and go, the count stays the number of the account's watches.

let scratch: ScratchContext;
let ctx: Context;
let accountId: string;
let other: string;
const clock = manualClock();
const evm = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

beforeAll(async () => {
  scratch = await openScratchContext("watch-counts", clock);
  ctx = scratch.ctx;
  await setPlan(ctx.db, clock, { name: "six", slots: 6 });
  const a = await createAccount(ctx, { name: "counted", plan: "six" });
  const b = await createAccount(ctx, { name: "beside", plan: "six" });
  if (!a.ok || !b.ok) throw new Error("accounts");
  accountId = a.account.id;
  other = b.account.id;
});
afterAll(async () => {
  await scratch.close();
});

/** The kept count and the watches themselves, for both accounts. */
async function counts() {
  const stored = await ctx.db.selectFrom("watch_counts").selectAll().orderBy("account_id").execute();
  return {
    kept: Object.fromEntries(stored.map((r) => [r.account_id === accountId ? "counted" : "beside", Number(r.watches)])),
    used: { counted: await slotsUsed(ctx.db, accountId), beside: await slotsUsed(ctx.db, other) },
    watches: { counted: (await listWatches(ctx.db, accountId)).length, beside: (await listWatches(ctx.db, other)).length },
  };
}

describe("an account's count of watches", () => {
  test("is kept through single adds and deletes, re-adds, batches with repeats and refusals, and a purge", async () => {
    expect(await counts()).toEqual({ kept: {}, used: { counted: 0, beside: 0 }, watches: { counted: 0, beside: 0 } });

    const first = await addWatch(ctx.db, { accountId, network: "eth", address: evm(1), now: clock.now() });
    expect(first.ok && first.created).toBe(true);
    // Watching it again takes no slot.
    expect(await addWatch(ctx.db, { accountId, network: "eth", address: evm(1), now: clock.now() })).toMatchObject({ ok: true, created: false });
    await addWatch(ctx.db, { accountId: other, network: "eth", address: evm(1), now: clock.now() });
    expect(await counts()).toEqual({ kept: { counted: 1, beside: 1 }, used: { counted: 1, beside: 1 }, watches: { counted: 1, beside: 1 } });

    // A batch: one already watched, one repeated within it, and two past the plan's six slots.
    const batch = await addWatches(ctx.db, { accountId, items: [1, 2, 3, 3, 4, 5, 6, 7, 8].map((n) => ({ network: "eth", address: evm(n) })), now: clock.now() });
    expect(batch.map((o) => (o.ok ? (o.created ? "new" : "known") : o.code))).toEqual(["known", "new", "new", "known", "new", "new", "new", "SLOT_LIMIT", "SLOT_LIMIT"]);
    expect(await counts()).toEqual({ kept: { counted: 6, beside: 1 }, used: { counted: 6, beside: 1 }, watches: { counted: 6, beside: 1 } });
    expect(await addWatch(ctx.db, { accountId, network: "eth", address: evm(9), now: clock.now() })).toEqual({ ok: false, code: "SLOT_LIMIT" });

    const watches = await listWatches(ctx.db, accountId);
    expect(await deleteWatch(ctx.db, accountId, watches[0].id)).toBe(true);
    // Gone already, and another account's: nothing more is taken off.
    expect(await deleteWatch(ctx.db, accountId, watches[0].id)).toBe(false);
    expect(await deleteWatch(ctx.db, other, watches[1].id)).toBe(false);
    expect(await counts()).toEqual({ kept: { counted: 5, beside: 1 }, used: { counted: 5, beside: 1 }, watches: { counted: 5, beside: 1 } });

    const theirs = (await listWatches(ctx.db, other))[0].id;
    expect(await deleteWatches(ctx.db, accountId, [watches[1].id, watches[1].id, watches[2].id, theirs, "aw_missing"])).toEqual([true, false, true, false, false]);
    expect(await counts()).toEqual({ kept: { counted: 3, beside: 1 }, used: { counted: 3, beside: 1 }, watches: { counted: 3, beside: 1 } });

    await ctx.db.transaction().execute((trx) => purgeAccountWatches(trx, accountId));
    expect(await counts()).toEqual({ kept: { beside: 1 }, used: { counted: 0, beside: 1 }, watches: { counted: 0, beside: 1 } });
  });
});
