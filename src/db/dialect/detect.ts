import { type Kysely, PostgresAdapter, type Transaction } from "kysely";

/** Whether an executor (a database or a transaction) runs on PostgreSQL; for migrations and `database.ts`. */
export function isPostgres(db: Kysely<any> | Transaction<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
