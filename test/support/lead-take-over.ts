import type { Db } from "../../src/db/database.ts";
import { createLeadership, type Lead } from "../../src/db/leadership.ts";

/**
 * A follower lead taken over: one daemon takes the lead of `network`, goes (on SQLite it died and a
 * new `serve` started on the file; on PostgreSQL its lock session ended) and a second one takes the
 * lead, the next epoch. `old` is the first daemon's lead, whose writes must now be refused; `now`
 * the second's. `close` ends the second daemon's leadership.
 */
export async function leadTakenOver(db: Db, url: string, network: string): Promise<{ old: Lead; now: Lead; close(): Promise<void> }> {
  const first = createLeadership({ db, url, onLost: () => {} });
  const old = first.lead(network);
  if (!(await old.acquire())) throw new Error("the first daemon could not take the lead");
  await first.close();
  const second = createLeadership({ db, url, onLost: () => {} });
  const now = second.lead(network);
  if (!(await now.acquire())) throw new Error("the second daemon could not take the lead");
  return { old, now, close: () => second.close() };
}
