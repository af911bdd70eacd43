import type { Transaction } from "kysely";
import type { Db } from "../../db/database.ts";
import { type Lead, LeadLost } from "../../db/leadership.ts";
import type { DB } from "../../db/schema.ts";
import type { Logger } from "../../lib/log.ts";
import type { Metrics } from "../../lib/metrics.ts";

// The follower's side of leadership (db/leadership.ts): its writes fenced by the lead's epoch, and
// each change of lead logged and shown once.

/**
 * Runs one of the follower's writes in a transaction fenced by the lead's epoch; null, with
 * nothing written, when another daemon has taken the lead since this one took it.
 */
export async function fencedWrite<T>(db: Db, lead: Lead, write: (trx: Transaction<DB>) => Promise<T>): Promise<T | null> {
  try {
    return await db.transaction().execute(async (trx) => {
      await lead.fence(trx);
      return write(trx);
    });
  } catch (e) {
    // The fence throws to roll the transaction back: the one way out of Kysely's transaction.
    if (e instanceof LeadLost) return null;
    throw e;
  }
}

/**
 * Takes or confirms the lead of `network` on each call; logs and shows (`chainwatch_follower_leader`)
 * each change. A standby only asks again, once per poll interval, and reads nothing.
 */
export function createLeadTaker(deps: { network: string; lead: Lead; metrics: Metrics; log: Logger }): () => Promise<boolean> {
  const { network } = deps;
  /** Whether this daemon led at its last look (null: not looked yet). */
  let leading: boolean | null = null;
  return async () => {
    const now = await deps.lead.acquire();
    if (now !== leading) {
      deps.metrics.setGauge("chainwatch_follower_leader", now ? 1 : 0, { network });
      if (!now) deps.log.info(leading ? "follower lead lost: standing by" : "follower standing by: another daemon leads", { network });
      else if (leading === false) deps.log.info("follower lead taken", { network });
      leading = now;
    }
    return now;
  };
}
