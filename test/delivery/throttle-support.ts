import type { Db } from "../../src/db/database.ts";
import { type EnqueueInput, enqueueDeliveries } from "../../src/delivery/outbox.ts";
import type { Received } from "../support/webhook-sink.ts";
import { defaultEndpointId } from "../support/endpoints.ts";

// Shared by the delivery rate limit tests: a backlog of failed deliveries to recover, and the
// receiver's view of how many arrived in each clock second.

/**
 * Writes `count` address-watch deliveries of the account, queued at `createdAtMs` and failed (every
 * attempt used up), bodies `{"n": i}` in queue order: what a recovery puts back, oldest first.
 */
export async function failedBacklog(db: Db, accountId: string, count: number, createdAtMs: number, endpointId?: string): Promise<string[]> {
  const to = endpointId ?? (await defaultEndpointId(db, accountId));
  const inputs: EnqueueInput[] = Array.from({ length: count }, (_, n) => ({
    accountId,
    endpointId: to,
    kind: "event",
    eventType: "payment",
    network: "eth",
    body: JSON.stringify({ n }),
    nowMs: createdAtMs,
  }));
  // Queued and failed in one transaction: the rows are due (queued an hour ago), and a running
  // daemon's loop would otherwise claim and send some of them between the two, before the recovery
  // sends them all again.
  return db.transaction().execute(async (trx) => {
    const ids = await enqueueDeliveries(trx, inputs);
    for (let i = 0; i < ids.length; i += 500) {
      await trx
        .updateTable("deliveries")
        .set({ status: "failed", attempts: 11, last_status_code: 503, completed_at: createdAtMs })
        .where("id", "in", ids.slice(i, i + 500))
        .execute();
    }
    return ids;
  });
}

/**
 * The `n` of each backlog body of the account whose first attempt is in the delivery log, in the
 * order those attempts started (`started_at`): the order the daemon sent them in. Rows started in
 * the same millisecond went out at once (and may reach the receiver in either order): they are
 * listed in their own order.
 */
export async function sendOrderOf(db: Db, accountId: string): Promise<number[]> {
  const rows = await db
    .selectFrom("delivery_attempts as a")
    .innerJoin("deliveries as d", "d.id", "a.delivery_id")
    .innerJoin("delivery_bodies as b", "b.delivery_id", "a.delivery_id")
    .select(["a.delivery_id", "a.started_at", "b.body"])
    .where("d.account_id", "=", accountId)
    .execute();
  const first = new Map<string, { at: number; n: number }>();
  for (const r of rows) {
    const at = Number(r.started_at);
    const seen = first.get(r.delivery_id);
    if (!seen || at < seen.at) first.set(r.delivery_id, { at, n: nOf(r.body) });
  }
  return [...first.values()].sort((x, y) => x.at - y.at || x.n - y.n).map((r) => r.n);
}

/** The `n` of each backlog body received, in arrival order. */
export const sequenceOf = (received: readonly Received[]) => received.map((r) => nOf(r.body));

/** The `n` of a backlog body (failedBacklog). */
const nOf = (body: string) => (JSON.parse(body) as { n: number }).n;

/** How many requests arrived in each of `seconds` clock seconds from `fromMs` (a whole second). */
export function perSecond(received: readonly Received[], fromMs: number, seconds: number): number[] {
  const counts = Array(seconds).fill(0);
  for (const r of received) {
    const i = Math.floor((r.at - fromMs) / 1000);
    if (i >= 0 && i < seconds) counts[i]++;
  }
  return counts;
}

/**
 * The clock seconds of `counts` that break an endpoint's limit of `rate` a second: above it by more
 * than half (a send a busy machine delayed into the next second is no burst), unless the second
 * before carried so few that the two together hold no more than two seconds' worth. That is the
 * limit's one documented exception (docs/webhooks.md): a stall of under a second holds some sends
 * back, and they go out as it ends, beside the slots of the second it ends in.
 */
export function secondsOverLimit(counts: readonly number[], rate: number): number[] {
  return counts.filter((c, i) => c > rate * 1.5 && !(i > 0 && counts[i - 1] + c <= rate * 2 * 1.1));
}

/**
 * The median time between two consecutive arrivals within `seconds` clock seconds from `fromMs`, in
 * the seconds that carried no more than `rate` (+10 %). A second above that carried a short stall's
 * held-back sends (secondsOverLimit's exception): its gaps are that catch-up's, not the pace's. A
 * loop that bursts every second leaves no gap to measure: NaN, which is no pace.
 */
export function medianGap(received: readonly Received[], fromMs: number, seconds: number, rate: number): number {
  const counts = perSecond(received, fromMs, seconds);
  const at = received
    .map((r) => r.at)
    .filter((t) => t >= fromMs && t < fromMs + seconds * 1000)
    .toSorted((x, y) => x - y);
  const gaps = at.slice(1).flatMap((t, i) => (counts[Math.floor((t - fromMs) / 1000)] <= rate * 1.1 ? [t - at[i]] : []));
  return gaps.toSorted((x, y) => x - y)[Math.floor(gaps.length / 2)] ?? Number.NaN;
}

/** The first whole clock second after `ms`. */
export const nextWholeSecond = (ms: number) => (Math.floor(ms / 1000) + 1) * 1000;
