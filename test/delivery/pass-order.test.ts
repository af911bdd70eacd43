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

test("a live row claimed behind a waiting batch of replayed rows is the next one sent", async () => {
  const clock = manualClock();
  const row = (id: string, replay: 0 | 1) => ({ id, replay, newest: false, account_id: "acc_1", price: 0, lease_until: clock.now() + LEASE_MS }) as unknown as ClaimedDelivery;
  const work = createWorkSignal();
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  // What each claim finds: first a replay batch, then (once announced) one live row, then nothing.
  const claims = [[row("r1", 1), row("r2", 1), row("r3", 1)], [row("live", 0)]];
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
  // Two replayed rows in flight, one waiting, room for one more; the live row's event comes in now.
  while (started.length < 2) await Bun.sleep(1);
  work.announce();
  announced.resolve();
  while (claims.length > 0) await Bun.sleep(1);
  await Bun.sleep(5);
  finish.get("r1")?.();
  while (started.length < 3) await Bun.sleep(1);
  expect(started).toEqual(["r1", "r2", "live"]);
  for (const id of ["r2", "live", "r3"]) {
    while (!finish.has(id)) await Bun.sleep(1);
    finish.get(id)?.();
  }
  await pass;
  expect(started).toEqual(["r1", "r2", "live", "r3"]);
});

test("another account's new row found behind a backlog is sent ahead of the backlog rows held ready", async () => {
  const clock = manualClock();
  const row = (id: string, accountId: string, newest: boolean) =>
    ({ id, replay: 0, newest, account_id: accountId, price: 0, lease_until: clock.now() + LEASE_MS }) as unknown as ClaimedDelivery;
  const work = createWorkSignal();
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  // The backlog's rows first (two in flight, one ready), then the newest look's row of another account.
  const claims = [[row("b1", "acc_backlog", false), row("b2", "acc_backlog", false), row("b3", "acc_backlog", false)], [row("new", "acc_other", true)]];
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
  while (started.length < 2) await Bun.sleep(1);
  work.announce();
  announced.resolve();
  while (claims.length > 0) await Bun.sleep(1);
  await Bun.sleep(5);
  finish.get("b1")?.();
  while (started.length < 3) await Bun.sleep(1);
  expect(started).toEqual(["b1", "b2", "new"]);
  for (const id of ["b2", "new", "b3"]) {
    while (!finish.has(id)) await Bun.sleep(1);
    finish.get(id)?.();
  }
  await pass;
  expect(started).toEqual(["b1", "b2", "new", "b3"]);
});
