import { sql } from "kysely";
import type { Db } from "../db/database.ts";

/**
 * Every column that holds a value sealed by the secret box, with the migration that made it (a
 * database before that migration has no such column) and, for one a later migration moved, the
 * migration that moved it. Sealed columns are named `*_enc`; a test holds this list to the migrated
 * schema, so a new one cannot be left out.
 */
export const SEALED_COLUMNS: readonly { table: string; column: string; since: string; until?: string }[] = [
  { table: "accounts", column: "webhook_secret_enc", since: "0001_core", until: "0030_webhook_endpoints" },
  { table: "accounts", column: "webhook_previous_secret_enc", since: "0022_webhook_secret_rotation", until: "0030_webhook_endpoints" },
  { table: "webhook_endpoints", column: "secret_enc", since: "0030_webhook_endpoints" },
  { table: "webhook_endpoints", column: "previous_secret_enc", since: "0030_webhook_endpoints" },
  { table: "api_keys", column: "secret_enc", since: "0001_core" },
];

/**
 * Whether any row holds a value sealed under a master key, in a database whose applied migrations
 * are `applied` (read before migrating: a fresh database has none and no tables to look in).
 * A database that holds none can take a new master key; one that holds any needs its own.
 */
export async function hasSealedSecrets(db: Db, applied: readonly string[]): Promise<boolean> {
  for (const { table, column, since, until } of SEALED_COLUMNS) {
    if (!applied.includes(since) || (until !== undefined && applied.includes(until))) continue;
    const found = await sql`select 1 as found from ${sql.table(table)} where ${sql.ref(column)} is not null limit 1`.execute(db);
    if (found.rows.length > 0) return true;
  }
  return false;
}

/**
 * Why a database that holds sealed secrets does not open without its master key, and how to get it
 * back. No new key is made for it: one would open none of them.
 */
export function lostMasterKeyMessage(keyFile: string): string {
  return (
    `master key file ${keyFile} does not exist and CHAINWATCH_MASTER_KEY is not set, but the database holds secrets sealed under a master key: ` +
    `put this installation's key back there (mode 0600) or set CHAINWATCH_MASTER_KEY to it; it is the key you keep apart from the backups ` +
    `(docs/operations.md, "Backup and restore"). A new key would open none of them, so none was written`
  );
}
