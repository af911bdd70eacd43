import type { CommandDef } from "citty";
import { VERSION } from "../src/version.ts";
import type { Globals } from "./globals.ts";

/**
 * The `chainwatch` command tree. Its own module, free of side effects, so that docs/generate.ts and
 * the docs test read the same definitions the binary runs.
 */
export function rootCommand(g: Globals): CommandDef {
  return {
    meta: { name: "chainwatch", version: VERSION, description: "Watch blockchain addresses; deliver signed webhooks" },
    // No `run` on the root: it would run after every subcommand. Each command is loaded when named,
    // so `chainwatch keys list` never loads the HTTP server, the followers or the chain libraries.
    subCommands: {
      serve: () => import("./commands/serve.ts").then((c) => c.serveCommand(g)),
      migrate: () => import("./commands/migrate.ts").then((c) => c.migrateCommand(g)),
      plans: () => import("./commands/plans.ts").then((c) => c.plansCommand(g)),
      accounts: () => import("./commands/accounts.ts").then((c) => c.accountsCommand(g)),
      keys: () => import("./commands/keys.ts").then((c) => c.keysCommand(g)),
      ingest: () => import("./commands/ingest.ts").then((c) => c.ingestCommand(g)),
      watches: () => import("./commands/watches.ts").then((c) => c.watchesCommand(g)),
      webhook: () => import("./commands/webhook.ts").then((c) => c.webhookCommand(g)),
      payments: () => import("./commands/payments.ts").then((c) => c.paymentsCommand(g)),
      deliveries: () => import("./commands/deliveries.ts").then((c) => c.deliveriesCommand(g)),
      cabinet: () => import("./commands/cabinet.ts").then((c) => c.cabinetCommand(g)),
      follow: () => import("./commands/follow.ts").then((c) => c.followCommand(g)),
      backup: () => import("./commands/backup.ts").then((c) => c.backupCommand(g)),
      restore: () => import("./commands/backup.ts").then((c) => c.restoreCommand(g)),
      version: () => import("./commands/backup.ts").then((c) => c.versionCommand(g)),
    },
  };
}
