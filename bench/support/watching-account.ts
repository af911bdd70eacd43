import { createAccount } from "../../src/accounts/accounts.ts";
import { setPlan } from "../../src/accounts/plans.ts";
import { loadConfig } from "../../src/config/load.ts";
import { openContext } from "../../src/daemon.ts";
import type { EventFilters } from "../../src/webhooks/filters.ts";
import { addWatch } from "../../src/watch/watches.ts";
import { pointWebhook } from "./endpoint.ts";

/**
 * Seeds a follower bench's database through the config at `configPath`, before its daemon starts:
 * one account on a plan of as many address slots as `addresses`, its webhook to `hookUrl`, and a
 * watch of each address on `network`.
 */
export async function seedWatchingAccount(
  configPath: string,
  opts: { network: string; addresses: readonly string[]; hookUrl: string; events?: Partial<EventFilters> },
): Promise<void> {
  const loaded = loadConfig(configPath);
  if (!loaded.ok) throw new Error(loaded.error);
  const ctx = await openContext(loaded.config, { env: {} });
  try {
    await setPlan(ctx.db, ctx.clock, { name: "bench", slots: opts.addresses.length });
    const account = await createAccount(ctx, { name: "bench", plan: "bench" });
    if (!account.ok) throw new Error(account.error);
    await pointWebhook(ctx.db, account.account.id, opts.hookUrl, opts.events ? { events: opts.events } : {});
    for (const address of opts.addresses) {
      const added = await addWatch(ctx.db, { accountId: account.account.id, network: opts.network, address, now: Date.now() });
      if (!added.ok) throw new Error(`watch of ${address} refused`);
    }
  } finally {
    await ctx.db.destroy();
  }
}
