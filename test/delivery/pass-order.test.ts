import { expect, test } from "bun:test";
import type { ClaimedDelivery } from "../../src/delivery/claim.ts";
import { type Committed, createWorkSignal, type Finished, runPass } from "../../src/delivery/pass.ts";
import { createCreditReservations } from "../../src/delivery/reservations.ts";
import { silentLogger } from "../../src/lib/log.ts";
import { manualClock } from "../support/clock.ts";

// docs/webhooks.md: replayed deliveries go out only in the room live ones leave. The claim puts
// live rows first within a batch; here the pass keeps that across batches: a live row claimed
// while a replay's earlier batch still waits for a send slot is sent next, ahead of that batch.
// Likewise another account's new row, found by the claim's look at the most recently due rows
// while one account's backlog drains, goes out ahead of the backlog rows already held ready.

const LEASE_MS = 60_000;
const clock = manualClock();

type Row = { id: string; replay?: 0 | 1; newest?: boolean; account?: string };

const claimed = (r: Row) =>
  ({ id: r.id, replay: r.replay ?? 0, newest: r.newest ?? false, account_id: r.account ?? "acc_1", price: 0, lease_until: clock.now() + LEASE_MS }) as unknown as ClaimedDelivery;

/**
 * A pass with two send slots over two claims: `first` (two of its rows go out, the third waits for
 * a slot), then, once new work is announced, `then`. Each send finishes when the test says so, in
 * `finishOrder` after the first finishes; returns the order the rows were sent in after the first
 * one finished, and when the pass is over.
 */
async function sentInOrder(first: Row[], then: Row[], finishOrder: string[]): Promise<{ afterFirst: string[]; all: string[] }> {
  const work = createWorkSignal();
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const claims = [first.map(claimed), then.map(claimed)];
  let commits = 0;
  const announced = Promise.withResolvers<void>();
  const pass = runPass(
    {
      concurrency: 2,
      claimBatch: 1,
      leaseMs: LEASE_MS,
      readyForMs: 1000,
      clock,
      log: silentLogger,
      work,
      reservations: createCreditReservations(),
      send: (d) => {
        started.push(d.id);
        return new Promise<Finished>((resolve) => finish.set(d.id, () => resolve({ delivery: d } as Finished)));
      },
      commit: async (_group, _unsent, limit): Promise<Committed> => {
        commits++;
        if (limit === 0) return { claimed: [], more: false };
        if (commits === 2) await announced.promise;
        return { claimed: claims.shift() ?? [], more: false };
      },
    },
    () => false,
  );
  // Two rows in flight, one waiting, room for one more; the new work comes in now.
  while (started.length < 2) await Bun.sleep(1);
  work.announce();
  announced.resolve();
  while (claims.length > 0) await Bun.sleep(1);
  await Bun.sleep(5);
  finish.get(first[0].id)?.();
  while (started.length < 3) await Bun.sleep(1);
  const afterFirst = [...started];
  for (const id of finishOrder) {
    while (!finish.has(id)) await Bun.sleep(1);
    finish.get(id)?.();
  }
  await pass;
  return { afterFirst, all: started };
}

test("a live row claimed behind a waiting batch of replayed rows is the next one sent", async () => {
  const replayed = [{ id: "r1", replay: 1 }, { id: "r2", replay: 1 }, { id: "r3", replay: 1 }] as const;
  const { afterFirst, all } = await sentInOrder([...replayed], [{ id: "live" }], ["r2", "live", "r3"]);
  expect(afterFirst).toEqual(["r1", "r2", "live"]);
  expect(all).toEqual(["r1", "r2", "live", "r3"]);
});

test("another account's new row found behind a backlog is sent ahead of the backlog rows held ready", async () => {
  const backlog = ["b1", "b2", "b3"].map((id) => ({ id, account: "acc_backlog" }));
  const { afterFirst, all } = await sentInOrder(backlog, [{ id: "new", account: "acc_other", newest: true }], ["b2", "new", "b3"]);
  expect(afterFirst).toEqual(["b1", "b2", "new"]);
  expect(all).toEqual(["b1", "b2", "new", "b3"]);
});
