import { defineCommand } from "citty";
import { openContext, startDaemon } from "../../src/daemon.ts";
import { jsonLogger } from "../../src/lib/log.ts";
import { configFor } from "../context.ts";
import type { Globals } from "../globals.ts";
import { globalArgs } from "./common.ts";

export function serveCommand(g: Globals) {
  return defineCommand({
    meta: { name: "serve", description: "Migrate, then run the API, the delivery loop and the crons (JSON logs on stdout)" },
    args: { ...globalArgs },
    async run() {
      const log = jsonLogger((line) => process.stdout.write(line));
      const ctx = await openContext(configFor(g), { log });
      const daemon = await startDaemon(ctx);
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
      log.info("stopped");
    },
  });
}
