import { defineCommand } from "citty";
import { openContext, startDaemon } from "../../src/daemon.ts";
import { lockDatabaseForServe } from "../../src/db/daemon-lock.ts";
import { jsonLogger } from "../../src/lib/log.ts";
import { configFor, databaseFile } from "../context.ts";
import { CommandError, type Globals } from "../globals.ts";
import { globalArgs } from "./common.ts";

export function serveCommand(g: Globals) {
  return defineCommand({
    meta: { name: "serve", description: "Migrate, then run the API, the delivery loop and the crons (JSON logs on stdout)" },
    args: { ...globalArgs },
    async run() {
      const { config, origin } = configFor(g);
      const log = jsonLogger((line) => process.stdout.write(line), Date.now, config.log.level);
      // Before the database is opened (or migrated): a second serve on a SQLite file stops here.
      const claimed = lockDatabaseForServe(config.database.url, process.pid);
      if (!claimed.ok) throw new CommandError(claimed.error);
      const ctx = await openContext(config, { log });
      const daemon = await startDaemon(ctx, { soleDaemon: claimed.sole });
      // Said once at start, after `listening`: which database this daemon uses, and which config chose it.
      log.info("database", { database: databaseFile(config), config: origin });
      // runMain would exit as soon as run() returns: wait here for the signal and a clean stop.
      await new Promise<void>((resolve) => {
        const shutdown = (signal: string) => {
          log.info("shutting down", { signal });
          daemon.stop().then(resolve, (e) => {
            log.error("shutdown failed", { error: String(e) });
            resolve();
          });
        };
        process.once("SIGTERM", () => shutdown("SIGTERM"));
        process.once("SIGINT", () => shutdown("SIGINT"));
      });
      claimed.lock.release();
      log.info("stopped");
    },
  });
}
