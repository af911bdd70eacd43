#!/usr/bin/env bun
import { type CommandDef, renderUsage, runCommand } from "citty";
import { VERSION } from "../src/version.ts";
import { accountsCommand } from "./commands/accounts.ts";
import { cabinetCommand } from "./commands/cabinet.ts";
import { backupCommand, restoreCommand, versionCommand } from "./commands/backup.ts";
import { ingestCommand } from "./commands/ingest.ts";
import { keysCommand } from "./commands/keys.ts";
import { deliveriesCommand } from "./commands/deliveries.ts";
import { webhookCommand } from "./commands/webhook.ts";
import { migrateCommand } from "./commands/migrate.ts";
import { plansCommand } from "./commands/plans.ts";
import { serveCommand } from "./commands/serve.ts";
import { type Globals, liftGlobals, UsageError } from "./globals.ts";

function rootCommand(g: Globals): CommandDef {
  return {
    meta: { name: "chainwatch", version: VERSION, description: "Watch blockchain addresses; deliver signed webhooks" },
    // No `run` on the root: it would run after every subcommand.
    subCommands: {
      serve: serveCommand(g),
      migrate: migrateCommand(g),
      plans: plansCommand(g),
      accounts: accountsCommand(g),
      keys: keysCommand(g),
      ingest: ingestCommand(g),
      webhook: webhookCommand(g),
      deliveries: deliveriesCommand(g),
      cabinet: cabinetCommand(g),
      backup: backupCommand(g),
      restore: restoreCommand(g),
      version: versionCommand(g),
    },
  };
}

/** The command a word path names (`keys create` → that command), for --help. */
async function commandAt(root: CommandDef, words: string[]): Promise<{ cmd: CommandDef; parent?: CommandDef }> {
  let cmd = root;
  let parent: CommandDef | undefined;
  for (const w of words) {
    const subs = (await cmd.subCommands) as Record<string, CommandDef> | undefined;
    if (!subs || !(w in subs)) break;
    parent = cmd;
    cmd = subs[w];
  }
  return { cmd, parent };
}

async function main(argv: string[]): Promise<number> {
  let root: CommandDef | undefined;
  try {
    const { globals, rest } = liftGlobals(argv);
    root = rootCommand(globals);
    if (rest.includes("--version") && rest.length === 1) {
      process.stdout.write(`${VERSION}\n`);
      return 0;
    }
    if (rest.length === 0 || rest.includes("--help") || rest.includes("-h")) {
      const { cmd, parent } = await commandAt(root, rest.filter((a) => !a.startsWith("-")));
      process.stdout.write(`${await renderUsage(cmd, parent)}\n`);
      return rest.length === 0 ? 2 : 0;
    }
    await runCommand(root, { rawArgs: rest });
    return 0;
  } catch (error) {
    const usage = error instanceof UsageError || (error as Error).name === "CLIError";
    const message = (error as Error).message ?? String(error);
    process.stderr.write(`chainwatch: ${message.replace(/\x1b\[[0-9;]*m/g, "")}${usage ? " (see --help)" : ""}\n`);
    return usage ? 2 : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
