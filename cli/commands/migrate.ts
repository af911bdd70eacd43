import { defineCommand } from "citty";
import { migrate } from "../../src/db/database.ts";
import { readSchemaStamp } from "../../src/db/version-guard.ts";
import { maskedDatabaseUrl } from "../../src/db/connection-check.ts";
import { withContext } from "../context.ts";
import { CommandError, type Globals } from "../globals.ts";
import { emit } from "../output.ts";
import { globalArgs } from "./common.ts";

/** The number a migration name starts with (`0021_delivery_throttle` → `0021`). */
const numberOf = (name: string) => name.split("_")[0];

/**
 * What `migrate` says: the migrations it applied, first … last, and the schema they leave; or that
 * nothing was pending. `schema` is the highest migration the database holds (null: none).
 */
export function describeMigration(applied: string[], schema: string | null): string {
  const at = schema === null ? "no schema" : `schema at ${numberOf(schema)}`;
  if (applied.length === 0) return `up to date (${at})`;
  const sorted = [...applied].sort();
  const names = sorted.length <= 2 ? sorted.join(", ") : `${sorted[0]} … ${sorted[sorted.length - 1]}`;
  return `applied ${sorted.length} migration${sorted.length === 1 ? "" : "s"} (${names}); ${at}`;
}

export function migrateCommand(g: Globals) {
  return defineCommand({
    meta: { name: "migrate", description: "Apply pending database migrations (creates the master key for a new database)" },
    args: { ...globalArgs },
    run: () =>
      withContext(g, async (ctx) => {
        // Opening the context applied what was pending; ask again in case another process
        // landed a migration in between, and report both.
        const result = await migrate(ctx.db);
        if (!result.ok) throw new CommandError(result.error);
        const applied = [...ctx.migrationsApplied, ...result.applied].sort();
        const schema = (await readSchemaStamp(ctx.db)).applied.sort().at(-1) ?? null;
        const doc = { ok: true, database: maskedDatabaseUrl(ctx.config.database.url), applied, schema };
        emit(g, doc, () => describeMigration(applied, schema));
      }, { create: true }),
  });
}
