import { expect, test } from "bun:test";
import type { ClaimedDelivery } from "../../src/delivery/claim.ts";
import { type Committed, createWorkSignal, type Finished, MAX_READY_DEPTH, readyDepth, runPass } from "../../src/delivery/pass.ts";
import { createCreditReservations } from "../../src/delivery/reservations.ts";
import { silentLogger } from "../../src/lib/log.ts";
import { manualClock } from "../support/clock.ts";

// docs/webhooks.md: the loop keeps enough claimed rows ready for its slots to send through one
// commit. A row claimed by a commit can go out only once that commit ends, so with slow commits
// and fast receivers the ready rows must outlast a commit; with slow receivers they would only wait.

const LEASE_MS = 60_000;
const CONCURRENCY = 4;

test("rows kept ready: a commit's time over a send's, at least one per slot, at most MAX_READY_DEPTH", () => {
  expect(readyDepth(0, 0)).toBe(1);
  expect(readyDepth(10, 0)).toBe(1);
  expect(readyDepth(1, 2)).toBe(1);
  expect(readyDepth(2, 2)).toBe(1);
  expect(readyDepth(10, 2)).toBe(5);
  expect(readyDepth(11, 2)).toBe(6);
  expect(readyDepth(1_000, 1)).toBe(MAX_READY_DEPTH);
});

/**
 * Runs a pass over `total` due rows whose commits and sends each take the time given (`sendMs` may
 * change with the number of sends made so far); returns every claim's limit.
 */
async function limitsAsked(commitMs: number, sendMs: number | ((sent: number) => number), total = 400): Promise<number[]> {
  const sendTime = typeof sendMs === "number" ? () => sendMs : sendMs;
  let sent = 0;
  const clock = manualClock();
  let next = 0;
  const limits: number[] = [];
  await runPass(
    {
      concurrency: CONCURRENCY,
      claimBatch: 1,
      leaseMs: LEASE_MS,
      readyForMs: LEASE_MS / 4,
      clock,
      log: silentLogger,
      work: createWorkSignal(),
      reservations: createCreditReservations(),
      send: async (d) => {
        clock.advance(sendTime(sent++));
        return { delivery: d } as Finished;
      },
      commit: async (_group, _unsent, limit): Promise<Committed> => {
        clock.advance(commitMs);
        if (limit > 0) limits.push(limit);
        const claimed: ClaimedDelivery[] = [];
        while (claimed.length < limit && next < total) {
          const id = `d${next++}`;
          claimed.push({ id, replay: 0, account_id: "acc_1", price: 0, lease_until: clock.now() + LEASE_MS } as unknown as ClaimedDelivery);
        }
        return { claimed, more: false };
      },
    },
    () => false,
  );
  expect(next).toBe(total);
  return limits;
}

test("slow commits and fast receivers: the pass claims ahead, up to MAX_READY_DEPTH rows per slot", async () => {
  // A commit takes ten sends' time: more than one row a slot is kept ready, never more than the most.
  const limits = await limitsAsked(20, 2);
  expect(Math.max(...limits)).toBeGreaterThan(2 * CONCURRENCY);
  expect(limits.every((l) => l <= (1 + MAX_READY_DEPTH) * CONCURRENCY)).toBe(true);
});

test("fast commits and slow receivers: one row a slot is kept ready, as many as are in flight", async () => {
  const limits = await limitsAsked(1, 20);
  expect(Math.max(...limits)).toBe(2 * CONCURRENCY);
});

test("a receiver that turns slow: the pass stops claiming ahead of it", async () => {
  // Fast sends first, then every send takes ten commits' time.
  const limits = await limitsAsked(20, (sent) => (sent < 100 ? 2 : 200), 600);
  expect(Math.max(...limits)).toBeGreaterThan(2 * CONCURRENCY);
  expect(limits.slice(-10).every((l) => l <= 2 * CONCURRENCY)).toBe(true);
});
