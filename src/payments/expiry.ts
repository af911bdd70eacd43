import type { Db } from "../db/database.ts";
import { serialize } from "../db/primitives.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import { steadyWallClock } from "../lib/steady-wall-clock.ts";
import { createWorker, type Worker } from "../lib/worker.ts";
import { nextStates, type PaymentStatus } from "./lifecycle.ts";
import { applyTransitions } from "./transitions.ts";

// Bounds one transaction; a backlog drains over the next ticks.
const BATCH = 200;

/**
 * Expires every pending or underpaid order whose `expires_at` is at or before `dueMs`, announcing
 * each with an `expired` webhook, all in one transaction; what it writes is stamped `nowMs` (the
 * wall clock, which the delivery loop reads). Returns how many orders expired.
 */
export async function expireDueOrders(db: Db, dueMs: number, nowMs: number): Promise<number> {
  // A plain read first: most ticks find nothing, and should not take SQLite's writer lock for it.
  const any = await db
    .selectFrom("payments")
    .select("id")
    .where("status", "in", ["pending", "underpaid"])
    .where("expires_at", "<=", dueMs)
    .limit(1)
    .executeTakeFirst();
  if (!any) return 0;
  return db.transaction().execute(async (trx) => {
    // Not interleaved with an ingest that is paying one of these orders (see ingest-service.ts).
    await serialize(trx, "ingest");
    // Read inside the write transaction: an ingest that just paid an order is already visible.
    const due = await trx
      .selectFrom("payments")
      .selectAll()
      .where("status", "in", ["pending", "underpaid"])
      .where("expires_at", "<=", dueMs)
      .orderBy("expires_at")
      .limit(BATCH)
      .execute();
    let expired = 0;
    for (const order of due) {
      const states = nextStates(order.status as PaymentStatus, { kind: "expiry_due" });
      if (states.length === 0) continue;
      // The order's money, if any, arrived with its last counted transfer; none means tx_hash stays null.
      const last = await trx
        .selectFrom("payment_transfers")
        .select("tx_hash")
        .where("payment_id", "=", order.id)
        .where("late", "=", 0)
        .orderBy("id", "desc")
        .executeTakeFirst();
      await applyTransitions(trx, { order: { ...order, tx_hash: last?.tx_hash ?? null }, states, txHash: null, nowMs });
      expired += 1;
    }
    return expired;
  });
}

/**
 * Runs `expireDueOrders` every second (croner, no overlap) and wakes the delivery loop when it
 * expired any. "Now" is the wall clock without its steps (steady-wall-clock.ts): a clock stepped
 * an hour forward does not expire an hour of orders early, and one stepped back does not hold
 * them an hour late.
 */
export function createExpiryWorker(deps: { db: Db; clock: Clock; log: Logger; wakeDelivery: () => void }): Worker {
  const steadyNow = steadyWallClock(deps.clock, (stepMs) =>
    deps.log.warn("wall clock stepped; payment orders expire as time passes, not as the clock jumped", { step_ms: stepMs }),
  );
  return createWorker({
    name: "payment-expiry",
    log: deps.log,
    schedule: "* * * * * *",
    failure: "payment expiry failed",
    async run() {
      const n = await expireDueOrders(deps.db, steadyNow(), deps.clock.now());
      if (n > 0) {
        deps.log.info("payment orders expired", { count: n });
        deps.wakeDelivery();
      }
    },
  });
}
