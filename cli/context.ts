import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { ConfigOverride } from "../src/config/env.ts";
import { type ConfigSource, findConfig, loadConfig } from "../src/config/load.ts";
import { dialectOfUrl, sqlitePath } from "../src/db/database.ts";
import type { Config } from "../src/config/schema.ts";
import { type Context, MissingMasterKey, openContext } from "../src/context.ts";
import { CommandError, type Globals } from "./globals.ts";

/** A validated config and a phrase saying where it came from (`config /etc/cw.toml from --config`). */
export type LoadedConfig = { config: Config; origin: string };

/**
 * The validated config the global flags point at, with the environment's CHAINWATCH_ variables and
 * then `flags` (serve's --host, --port, --database) laid over it; a bad one stops the command naming
 * the key and what set it.
 */
export function configFor(globals: Globals, flags: ConfigOverride[] = [], env: Record<string, string | undefined> = globals.io.env): LoadedConfig {
  const source = findConfig(globals.config, env, process.cwd());
  const result = loadConfig(source.path, env, flags);
  if (!result.ok) throw new CommandError(result.error);
  return { config: result.config, origin: describeOrigin(source) };
}

function describeOrigin(source: ConfigSource): string {
  if (source.path === null) return "built-in defaults: no --config, $CHAINWATCH_CONFIG or ./chainwatch.toml";
  return `config ${resolve(source.path)} from ${source.via}`;
}

/**
 * The database a config points at, to name it: a SQLite file made absolute (relative paths are
 * taken from the working directory), or a PostgreSQL URL without its password.
 */
export function databaseFile(config: Config): string {
  const url = config.database.url;
  if (dialectOfUrl(url) === "postgres") {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.href;
  }
  const file = sqlitePath(url);
  return file === ":memory:" ? file : resolve(file);
}

/**
 * What would have to be created from nothing to run against this config: run from the wrong
 * folder, a relative database path silently yields a new empty database. (A missing master key is
 * openContext's to judge: it depends on whether the database holds secrets sealed under one.)
 */
function missingDatabase(config: Config): string | null {
  const db = databaseFile(config);
  // A PostgreSQL database is created by its administrator; migrate fills it.
  if (dialectOfUrl(config.database.url) === "sqlite" && db !== ":memory:" && !existsSync(db)) return `no database at ${db}`;
  return null;
}

/**
 * Runs `fn` with an open, migrated context and always closes the database. Unless `create` (the
 * migrate command, or --create) it refuses to start from nothing, naming the path and the config
 * it came from; on success it says on stderr which database it used (stdout stays the output).
 */
export async function withContext<T>(globals: Globals, fn: (ctx: Context) => Promise<T>, opts: { create?: boolean } = {}): Promise<T> {
  const { config, origin } = configFor(globals);
  const create = opts.create === true || globals.create;
  const fromNothing = (missing: string) => new CommandError(`${missing} (${origin}); run \`chainwatch migrate\` to create it, or pass --create`);
  const missing = create ? null : missingDatabase(config);
  if (missing) throw fromNothing(missing);
  const ctx = await openContext(config, { create, env: globals.io.env }).catch((e: unknown) => {
    throw e instanceof MissingMasterKey ? fromNothing(e.message) : e;
  });
  let result: T;
  try {
    result = await fn(ctx);
  } finally {
    await ctx.db.destroy();
  }
  globals.io.stderr.write(`chainwatch: database ${databaseFile(config)} (${origin})\n`);
  return result;
}
