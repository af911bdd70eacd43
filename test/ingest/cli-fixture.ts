import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createAccount } from "../../src/accounts/accounts.ts";
import { setPlan } from "../../src/accounts/plans.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import { addWatch } from "../../src/watch/watches.ts";
import { testDatabaseUrl } from "../support/harness.ts";

/**
 * For `chainwatch ingest` tests: writes `<dir>/cw.toml` over the test database of `dir`, in which
 * account `acme` (plan `p`) watches `address` on eth; returns the config's path.
 */
export async function ingestCliConfig(dir: string, address: string): Promise<string> {
  const config = join(dir, "cw.toml");
  writeFileSync(config, `[database]\nurl = "${testDatabaseUrl(dir)}"\n[secrets]\nmaster_key_file = "${dir}/master.key"\n`);
  const ctx = await openConfig(config);
  try {
    await setPlan(ctx.db, ctx.clock, { name: "p", slots: 5 });
    const created = await createAccount(ctx, { name: "acme", plan: "p" });
    if (!created.ok) throw new Error(created.error);
    await addWatch(ctx.db, { accountId: created.account.id, network: "eth", address, now: ctx.clock.now() });
  } finally {
    await ctx.db.destroy();
  }
  return config;
}

/** How many rows `table` holds in the config's database. */
export async function rowCount(config: string, table: "blocks" | "events"): Promise<number> {
  return withConfigContext(config, async (ctx) => {
    const row = await ctx.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    return Number(row.n);
  });
}

/** Runs `fn` over the config's database, closed afterwards (the CLI under test opens its own). */
export async function withConfigContext<T>(config: string, fn: (ctx: Context) => Promise<T>): Promise<T> {
  const ctx = await openConfig(config);
  try {
    return await fn(ctx);
  } finally {
    await ctx.db.destroy();
  }
}

async function openConfig(config: string) {
  const loaded = loadConfig(config);
  if (!loaded.ok) throw new Error(loaded.error);
  return openContext(loaded.config, { env: {} });
}
