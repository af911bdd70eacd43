import type { Db, Executor } from "../db/database.ts";
import { fixedStatement as statement } from "../db/fixed-sql.ts";
import { lockAccount } from "../db/primitives.ts";

// Credits set aside for /rpc (docs/reference.md §9, §10). A daemon does not charge each call as it
// is answered: it sets a slice of an account's balance aside under a lease (a row of
// `credit_leases`), spends the slice in memory, and at each flush charges what it spent and
// rewrites the row with what is left. Everything that spends credits (a take, a delivery claim)
// checks the balance less what every daemon has set aside, so nothing else counts the credits a
// lease holds. A lease not renewed in time belongs to a daemon that died; deleting its row gives
// the credits back.

/** What every daemon has set aside of one account (the query names `accounts` as `a`): summed by each check of the free credits. */
export const LEASED_OF_ACCOUNT = "(select coalesce(sum(l.credits), 0) from credit_leases as l where l.account_id = a.id)";

const READ_FREE = `select a.credits, ${LEASED_OF_ACCOUNT} as leased from accounts as a where a.id = ?`;
const WRITE_LEASE = `insert into credit_leases (holder, account_id, credits, lease_until) values (?, ?, ?, ?)
on conflict (holder, account_id) do update set credits = excluded.credits, lease_until = excluded.lease_until`;
const DROP_LEASE = "delete from credit_leases where holder = ? and account_id = ?";

export type LeaseTake = {
  holder: string;
  accountId: string;
  /** What the row holds now (this holder's credits set aside and not charged). */
  leased: number;
  /** The least worth taking: less than this and nothing is taken. */
  need: number;
  /** The most to take. */
  want: number;
  /** Credits this daemon has promised elsewhere (webhook deliveries in flight), read under the account's lock. */
  promised: () => number;
  leaseUntil: number;
};

/**
 * Sets up to `want` (at least `need`) of an account's free credits aside for `holder`: the balance
 * less every daemon's leases and this daemon's promises. The account row is locked first, so two
 * daemons' takes, and a take and a charge, run one after the other. Answers what it took and the
 * free credits it saw (before the take).
 */
export async function takeLease(db: Db, t: LeaseTake): Promise<{ taken: number; free: number }> {
  return db.transaction().execute(async (trx) => {
    await lockAccount(trx, t.accountId);
    const { rows } = await trx.executeQuery<{ credits: number | string; leased: number | string }>(statement(READ_FREE, [t.accountId]));
    const row = rows[0];
    if (!row) return { taken: 0, free: 0 };
    const free = Number(row.credits) - Number(row.leased) - t.promised();
    if (free < t.need) return { taken: 0, free };
    const taken = Math.min(t.want, free);
    await trx.executeQuery(statement(WRITE_LEASE, [t.holder, t.accountId, t.leased + taken, t.leaseUntil]));
    return { taken, free };
  });
}

/**
 * Rewrites `holder`'s rows to what it holds now and renews their lease: a row with nothing left
 * is deleted. Written whole rather than added to, so a row another daemon took back while this one
 * was cut off from the database comes back as this daemon still spends it.
 */
export async function writeLeases(db: Executor, holder: string, rows: readonly { accountId: string; credits: number }[], leaseUntil: number): Promise<void> {
  for (const r of rows) {
    if (r.credits > 0) await db.executeQuery(statement(WRITE_LEASE, [holder, r.accountId, r.credits, leaseUntil]));
    else await db.executeQuery(statement(DROP_LEASE, [holder, r.accountId]));
  }
}

/** Gives back the credits of leases that ran out before `nowMs` (their holders died); answers how many rows. */
export async function dropExpiredLeases(db: Executor, nowMs: number): Promise<number> {
  const res = await db.executeQuery(statement("delete from credit_leases where lease_until < ?", [nowMs]));
  return Number(res.numAffectedRows ?? 0);
}

/** Gives back every lease: for a daemon that knows it is the only one on its database, at start. */
export async function dropAllLeases(db: Executor): Promise<number> {
  const res = await db.executeQuery(statement("delete from credit_leases", []));
  return Number(res.numAffectedRows ?? 0);
}
