import type { Db } from "../db/database.ts";
import { resumePausedDeliveries } from "../delivery/outbox.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import { createWorker, type Worker } from "../lib/worker.ts";
import { creditAccount } from "./accounts.ts";

/** The UTC calendar month of a time, `YYYY-MM`: the period a monthly grant belongs to. */
export function utcMonth(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

export type GrantResult = { month: string; accounts: number; credits: number };

/**
 * Gives every account whose plan has `monthly_credits > 0` that many credits, once per UTC month.
 * One write transaction records the grants (the (account, month) key refuses a second one) and
 * adds exactly the recorded amounts, so a restart, a rerun or two daemons racing never grant twice.
 * Deliveries paused for lack of credits resume, as with `accounts credit`.
 */
export async function grantMonthlyCredits(db: Db, nowMs: number): Promise<GrantResult> {
  const month = utcMonth(nowMs);
  return db.transaction().execute(async (trx) => {
    const granted = await trx
      .insertInto("credit_grants")
      .columns(["account_id", "month", "plan", "credits", "granted_at"])
      .expression((eb) =>
        eb
          .selectFrom("accounts")
          .innerJoin("plans", "plans.name", "accounts.plan")
          .select((s) => [
            "accounts.id",
            s.val(month).as("month"),
            "plans.name",
            "plans.monthly_credits",
            s.val(nowMs).as("granted_at"),
          ])
          // SQLite needs a WHERE in an INSERT … SELECT … ON CONFLICT; this one is also the point.
          .where("plans.monthly_credits", ">", 0),
      )
      .onConflict((oc) => oc.columns(["account_id", "month"]).doNothing())
      .returning(["account_id", "credits"])
      .execute();
    // Only the rows this run inserted: another daemon granting at the same moment credits its own.
    // A balance already within a grant of the largest one keeps its value (the grant is recorded).
    for (const g of granted) await creditAccount(trx, g.account_id, g.credits, nowMs);
    await resumePausedDeliveries(trx, granted.map((g) => g.account_id), nowMs);
    return { month, accounts: granted.length, credits: granted.reduce((sum, g) => sum + g.credits, 0) };
  });
}

/**
 * The monthly grant as a daemon worker: at start and every hour, so an account gets its month's
 * grant within an hour of the month starting (or of joining a plan with monthly credits).
 */
export function monthlyGrantWorker(deps: { db: Db; clock: Clock; log: Logger; wakeDelivery: () => void; pattern?: string }): Worker {
  return createWorker({
    name: "monthly-credits",
    log: deps.log,
    schedule: deps.pattern ?? "@hourly",
    runOnStart: true,
    failure: "monthly credit grant failed",
    async run() {
      const result = await grantMonthlyCredits(deps.db, deps.clock.now());
      if (result.accounts === 0) return;
      deps.log.info("monthly credits granted", result);
      deps.wakeDelivery();
    },
  });
}
