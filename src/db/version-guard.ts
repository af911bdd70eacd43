import { sql } from "kysely";
import { type Db, type MigrationOutcome, migrate } from "./database.ts";
import { isPostgres } from "./dialect/detect.ts";
import { migrations } from "./migrations/index.ts";
import { startupFailure } from "../lib/error-codes.ts";
import { compareVersions } from "../version.ts";

/** The `meta` key naming the chainwatch version that last applied migrations. */
export const MIGRATED_BY = "migrated_by";

/** What the database says about the schema it holds, read before anything is migrated. */
export type SchemaStamp = { migratedBy: string | null; applied: string[] };

/** Reads the applied migration names and the stamp; a fresh database has neither. */
export async function readSchemaStamp(db: Db): Promise<SchemaStamp> {
  // Either table may be missing (a fresh database, or one migrated before the stamp existed):
  // a failed read then means "nothing recorded", never a reason to stop.
  const applied = await sql<{ name: string }>`select name from kysely_migration`
    .execute(db)
    .then((r) => r.rows.map((row) => row.name), () => []);
  const migratedBy = await db
    .selectFrom("meta")
    .select("value")
    .where("key", "=", MIGRATED_BY)
    .executeTakeFirst()
    .then((r) => r?.value ?? null, () => null);
  return { migratedBy, applied };
}

/**
 * Why this binary must not open a database, or null when it may: the database was migrated by a
 * newer chainwatch, or holds a migration this binary does not ship (a newer build of the same version).
 * Pure, so the rule is tested without building databases of future versions.
 */
export function refusalFor(stamp: SchemaStamp, version: string, known: readonly string[]): string | null {
  const unknown = stamp.applied.filter((name) => !known.includes(name));
  const newer = stamp.migratedBy !== null && compareVersions(stamp.migratedBy, version) > 0;
  if (!newer && unknown.length === 0) return null;
  const by = stamp.migratedBy ?? "an unknown version";
  const extra = unknown.length > 0 ? ` (migrations this version does not have: ${unknown.join(", ")})` : "";
  return `the database was migrated by chainwatch ${by}; this is chainwatch ${version}${extra}: run chainwatch ${stamp.migratedBy ?? "of that version"} or newer, or restore a backup taken before the upgrade`;
}

/**
 * Refuses a database from a newer chainwatch, applies pending migrations, and stamps the database
 * with this version when it applied any. Every command and `serve` open the database through this.
 */
export async function migrateChecked(db: Db, version: string, migrationDb?: () => Db): Promise<MigrationOutcome> {
  const stamp = await readSchemaStamp(db);
  const known = Object.keys(migrations);
  const refusal = refusalFor(stamp, version, known);
  if (refusal) return startupFailure(refusal);
  // Every migration already applied (every start but the first after an upgrade): the migrator's
  // lock table and introspection would cost each CLI command more than the command itself.
  if (known.every((name) => stamp.applied.includes(name))) return { ok: true, applied: [] };
  // On PostgreSQL, `migrationDb` (when given) opens connections without the statement bound for
  // the migrations; on SQLite the file's own handle is the one to use.
  const own = migrationDb && isPostgres(db) ? migrationDb() : null;
  let outcome: MigrationOutcome;
  try {
    outcome = await migrate(own ?? db);
  } finally {
    await own?.destroy();
  }
  if (outcome.ok && outcome.applied.length > 0) {
    await db
      .insertInto("meta")
      .values({ key: MIGRATED_BY, value: version })
      .onConflict((oc) => oc.column("key").doUpdateSet({ value: version }))
      .execute();
  }
  return outcome;
}
