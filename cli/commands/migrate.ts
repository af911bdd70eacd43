import { defineCommand } from "citty";
import { migrate } from "../../src/db/database.ts";
import { withContext } from "../context.ts";
import { CommandError, type Globals } from "../globals.ts";
import { emit } from "../output.ts";
import { globalArgs } from "./common.ts";

export function migrateCommand(g: Globals) {
  return defineCommand({
    meta: { name: "migrate", description: "Apply pending database migrations (creates the master key on first use)" },
    args: { ...globalArgs },
    run: () =>
      withContext(g, async (ctx) => {
        // openContext already migrated; ask again so the output says what is applied now.
        const result = await migrate(ctx.db);
        if (!result.ok) throw new CommandError(result.error);
        emit(g, { ok: true, database: ctx.config.database.url }, () => `database ${ctx.config.database.url} is up to date`);
      }, { create: true }),
  });
}
