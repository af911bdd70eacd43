import { sql } from "kysely";

/**
 * The concurrency primitives on SQLite: every write transaction starts with BEGIN IMMEDIATE and so
 * runs alone, which already gives each of them. See `src/db/primitives.ts`.
 */
export const sqlitePrimitives = {
  /** The row order watches were inserted in. */
  insertionOrder: sql`rowid`,
  async lockAccount(): Promise<void> {},
  async serialize(): Promise<void> {},
  /** No row locks to take or skip: the claim's write transaction runs alone. */
  claimLockClause: (_alias: string) => "",
  /** SQLite's planner reads the due index in order already (no statistics to go stale). */
  async orderedClaimPlan(): Promise<void> {},
};
