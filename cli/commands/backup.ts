import { defineCommand } from "citty";
import { resolve } from "node:path";
import type { Config } from "../../src/config/schema.ts";
import { dialectOfUrl, sqlitePath } from "../../src/db/database.ts";
import { backupSqlite, pgDumpCommand, restoreSqlite } from "../../src/ops/backup.ts";
import { loadMasterKey } from "../../src/secrets/master-key.ts";
import { createSecretBox } from "../../src/secrets/secret-box.ts";
import { VERSION } from "../../src/version.ts";
import { configFor } from "../context.ts";
import { CommandError, type Globals } from "../globals.ts";
import { emit } from "../output.ts";
import { globalArgs } from "./common.ts";

/** Where the key that opens the backup's secrets lives, for the reminder. */
function keyLocation(config: Config, env: Record<string, string | undefined>): string {
  return env.CHAINWATCH_MASTER_KEY ? "the key in $CHAINWATCH_MASTER_KEY" : resolve(config.secrets.master_key_file);
}

export function backupCommand(g: Globals) {
  return defineCommand({
    meta: { name: "backup", description: "Copy the database to <file> while serve keeps running (SQLite VACUUM INTO)" },
    args: { ...globalArgs, file: { type: "positional", description: "New file to write (never overwritten)", required: true } },
    run: ({ args }) => {
      const { config } = configFor(g);
      const file = String(args.file);
      if (dialectOfUrl(config.database.url) === "postgres") {
        // A cron job must not mistake this for a backup taken: print the command, exit 1. With
        // --json stdout stays one JSON document, saying no backup was taken.
        const command = pgDumpCommand(config.database.url, file);
        emit(g, { ok: false, pg_dump: command }, () => command);
        throw new CommandError("backup of a PostgreSQL database is pg_dump's job: run the command above (password from PGPASSWORD or ~/.pgpass)");
      }
      const dbPath = sqlitePath(config.database.url);
      const outcome = backupSqlite(dbPath, file);
      if (!outcome.ok) throw new CommandError(outcome.error);
      const key = keyLocation(config, g.io.env);
      const reminder = `keep the master key with it (${key}): without it the API and webhook secrets in the backup cannot be decrypted`;
      emit(
        g,
        { ok: true, database: resolve(dbPath), file: resolve(file), bytes: outcome.bytes, master_key: key, reminder },
        () => `backed up ${dbPath} to ${file} (${outcome.bytes} bytes)\n${reminder[0].toUpperCase()}${reminder.slice(1)}.`,
      );
    },
  });
}

export function restoreCommand(g: Globals) {
  return defineCommand({
    meta: { name: "restore", description: "Replace the database with a backup; refused while serve or another command has it open" },
    args: { ...globalArgs, file: { type: "positional", description: "A file written by chainwatch backup", required: true } },
    run: ({ args }) => {
      const { config } = configFor(g);
      if (dialectOfUrl(config.database.url) === "postgres") throw new CommandError("restore a PostgreSQL database with pg_restore");
      // The key must be the backed-up installation's: `migrate` would create a new one, so this says what to do instead.
      const key = loadMasterKey({ file: config.secrets.master_key_file, envValue: g.io.env.CHAINWATCH_MASTER_KEY, create: false, advice: null });
      if (!key.ok) throw new CommandError(`${key.error}: put the master key of the backed-up installation there (or set CHAINWATCH_MASTER_KEY) before restoring`);
      const dbPath = sqlitePath(config.database.url);
      const outcome = restoreSqlite({ dbPath, file: String(args.file), box: createSecretBox(key.key), version: VERSION, now: new Date() });
      if (!outcome.ok) throw new CommandError(outcome.error);
      emit(
        g,
        { ok: true, database: resolve(dbPath), previous: outcome.previous },
        () => `restored ${args.file} to ${dbPath}${outcome.previous ? `; the previous database is kept as ${outcome.previous}` : ""}`,
      );
    },
  });
}

export function versionCommand(g: Globals) {
  return defineCommand({
    meta: { name: "version", description: "Print chainwatch's version" },
    args: { ...globalArgs },
    run: () => emit(g, { version: VERSION }, () => VERSION),
  });
}
