import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createAccount } from "../../src/accounts/accounts.ts";
import { setPlan } from "../../src/accounts/plans.ts";
import type { Context } from "../../src/daemon.ts";
import { addWatch, findWatchesByAddresses } from "../../src/watch/watches.ts";
import { manualClock } from "../support/clock.ts";
import { openScratchContext, type ScratchContext } from "../support/scratch-context.ts";

// The ingest asks which watches hold the addresses of a batch: thousands of addresses, on networks
// that often hold a handful of watches. A network holding a tenth as many watches as the addresses
// asked about, or fewer, is read whole; one holding more is probed address by address. Either way
// the answer is the watches of the addresses asked about, and no other.

let scratch: ScratchContext;
let ctx: Context;
const accounts: string[] = [];
const clock = manualClock();
const evm = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

beforeAll(async () => {
  scratch = await openScratchContext("watches-by-address", clock);
  ctx = scratch.ctx;
  await setPlan(ctx.db, clock, { name: "many", slots: 100 });
  for (const name of ["first", "second"]) {
    const a = await createAccount(ctx, { name, plan: "many" });
    if (!a.ok) throw new Error(a.error);
    accounts.push(a.account.id);
  }
  // eth: 5 watches (addresses 1-4, and 2 by both accounts); polygon: 30 (addresses 1-30); bsc: none.
  const watch = (account: string, network: string, n: number) => addWatch(ctx.db, { accountId: account, network, address: evm(n), now: clock.now() });
  for (const n of [1, 2, 3, 4]) await watch(accounts[0], "eth", n);
  await watch(accounts[1], "eth", 2);
  for (let n = 1; n <= 30; n++) await watch(accounts[n % 2], "polygon", n);
});

afterAll(async () => {
  await scratch.close();
});

/** The watches `findWatchesByAddresses` finds, as "address by account" pairs, sorted. */
async function found(network: string, addresses: string[]): Promise<string[]> {
  const rows = await findWatchesByAddresses(ctx.db, network, addresses);
  return rows.map((w) => `${w.address} by ${w.account_id === accounts[0] ? "first" : "second"}`).sort();
}

/** Addresses 2, 3 and 31..(30 + n - 2): two watched on both networks, the rest watched nowhere. */
const asked = (n: number) => [evm(2), evm(3), ...Array.from({ length: n - 2 }, (_, i) => evm(31 + i))];

describe("the watches of a batch's addresses", () => {
  test.each([
    // 10 addresses allow 1 watch: eth's 5 are probed.
    ["eth", 10, ["0x0000000000000000000000000000000000000002 by first", "0x0000000000000000000000000000000000000002 by second", "0x0000000000000000000000000000000000000003 by first"]],
    // 50 addresses allow 5: eth's 5 are read whole, and only those of the addresses asked about kept.
    ["eth", 50, ["0x0000000000000000000000000000000000000002 by first", "0x0000000000000000000000000000000000000002 by second", "0x0000000000000000000000000000000000000003 by first"]],
    // 290 allow 29 watches: polygon's 30 are one too many, and probed.
    ["polygon", 290, ["0x0000000000000000000000000000000000000002 by first", "0x0000000000000000000000000000000000000003 by second"]],
    // 300 allow 30: read whole.
    ["polygon", 300, ["0x0000000000000000000000000000000000000002 by first", "0x0000000000000000000000000000000000000003 by second"]],
    ["bsc", 300, []],
  ])("%s, %i addresses asked about", async (network, n, expected) => {
    expect(await found(network, asked(n))).toEqual(expected);
  });

  test("an address asked about twice counts once, and none asked about finds none", async () => {
    expect(await found("eth", [evm(4), evm(4)])).toEqual(["0x0000000000000000000000000000000000000004 by first"]);
    expect(await found("eth", [])).toEqual([]);
  });
});
