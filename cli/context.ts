import { loadConfig, resolveConfigPath } from "../src/config/load.ts";
import type { Config } from "../src/config/schema.ts";
import { type Context, openContext } from "../src/daemon.ts";
import { CommandError, type Globals } from "./globals.ts";

/** The validated config the global flags point at; a bad one stops the command naming the key. */
export function configFor(globals: Globals): Config {
  const result = loadConfig(resolveConfigPath(globals.config, process.env, process.cwd()));
  if (!result.ok) throw new CommandError(result.error);
  return result.config;
}

/** Runs `fn` with an open, migrated context and always closes the database. */
export async function withContext<T>(globals: Globals, fn: (ctx: Context) => Promise<T>): Promise<T> {
  const ctx = await openContext(configFor(globals));
  try {
    return await fn(ctx);
  } finally {
    await ctx.db.destroy();
  }
}
