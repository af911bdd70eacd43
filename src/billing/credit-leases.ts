import type { Db, Executor } from "../db/database.ts";
import { lockAccount } from "../db/primitives.ts";
import { billingStatements } from "./sql/dialects.ts";
import type { CreditsRow } from "./sql/statements.ts";

export type { CreditsRow };

// Credits set aside for /rpc (docs/rpc.md, docs/operations.md). A daemon does not charge each call as it
// is answered: it sets a slice of an account's balance aside under a lease (a row of
// `credit_leases`), spends the slice in memory, and at each flush charges what it spent and
// rewrites the row with what is left. Everything that spends credits (a take, a delivery claim)
// checks the balance less what every daemon has set aside, so nothing else counts the credits a
// lease holds. A lease not renewed in time belongs to a daemon that died; deleting its row gives
// the credits back.

// The statements are each dialect's hand-written ones (sql/); every check of the free credits there
// sums what every daemon has set aside.

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
    const statements = billingStatements(trx);
    const { rows } = await trx.executeQuery(statements.readFreeCredits(t.accountId));
    const row = rows[0];
    if (!row) return { taken: 0, free: 0 };
    const free = Number(row.credits) - Number(row.leased) - t.promised();
    if (free < t.need) return { taken: 0, free };
    const taken = Math.min(t.want, free);
    await trx.executeQuery(statements.writeLease(t.holder, t.accountId, t.leased + taken, t.leaseUntil));
    return { taken, free };
  });
}

/**
 * Rewrites `holder`'s rows to what it holds now and renews their lease: a row with nothing left
 * is deleted. Written whole rather than added to, so a row another daemon took back while this one
 * was cut off from the database comes back as this daemon still spends it.
 */
export async function writeLeases(db: Executor, holder: string, rows: readonly { accountId: string; credits: number }[], leaseUntil: number): Promise<void> {
  const statements = billingStatements(db);
  for (const r of rows) {
    if (r.credits > 0) await db.executeQuery(statements.writeLease(holder, r.accountId, r.credits, leaseUntil));
    else await db.executeQuery(statements.dropLease(holder, r.accountId));
  }
}

/** Gives back the credits of leases that ran out before `nowMs` (their holders died); answers how many rows. */
export async function dropExpiredLeases(db: Executor, nowMs: number): Promise<number> {
  const res = await db.executeQuery(billingStatements(db).dropExpiredLeases(nowMs));
  return Number(res.numAffectedRows ?? 0);
}

/** Gives back every lease: for a daemon that knows it is the only one on its database, at start. */
export async function dropAllLeases(db: Executor): Promise<number> {
  const res = await db.executeQuery(billingStatements(db).dropAllLeases());
  return Number(res.numAffectedRows ?? 0);
}

/** What the /rpc credit meter reads of an account: its balance, every daemon's leases of it and its plan's `rpc_rps`; undefined for no such account. */
export async function readRpcAccount(db: Executor, accountId: string): Promise<(CreditsRow & { rpc_rps: number }) | undefined> {
  const { rows } = await db.executeQuery(billingStatements(db).readRpcAccount(accountId));
  return rows[0];
}
