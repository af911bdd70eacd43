import { sql, type Transaction } from "kysely";
import type { DB } from "../../schema.ts";

/**
 * The concurrency primitives on PostgreSQL (READ COMMITTED, many writers). See
 * `src/db/primitives.ts` for what each guarantees.
 */
export const postgresPrimitives = {
  insertionOrder: sql`position`,
  /**
   * Row lock on the account until the transaction ends: checks and writes under it run one at a
   * time per account. `for no key update`, the lock an update of the account's balance takes
   * anyway: it still excludes every other lock of the account and its updates, but not the foreign
   * key checks of rows that name the account (an order saved, a usage row added), which a stronger
   * lock made wait and could turn into a deadlock.
   */
  async lockAccount(trx: Transaction<DB>, accountId: string): Promise<void> {
    await sql`select 1 from accounts where id = ${accountId} for no key update`.execute(trx);
  },
  /** A transaction-scoped advisory lock on a name: whoever holds it runs alone until commit. */
  async serialize(trx: Transaction<DB>, name: string): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtext(${`chainwatch:${name}`}))`.execute(trx);
  },
  /** Appended to a claim's SELECT: rows another daemon is claiming are passed over, not waited on. */
  claimLockClause: (alias: string) => ` for update of ${alias} skip locked`,
  /**
   * Before a claim that reads due rows in index order: after a burst the planner's statistics can
   * still describe a near-empty outbox, and it then sorts every pending row for each claim (75 ms
   * instead of 0.1 ms) until autovacuum's ANALYZE. With sorting priced out for this transaction
   * the due index, which yields the rows already in order, is the plan whatever the statistics say.
   */
  async orderedClaimPlan(trx: Transaction<DB>): Promise<void> {
    await sql`set local enable_sort = off`.execute(trx);
  },
};
