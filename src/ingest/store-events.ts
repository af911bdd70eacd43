import type { Transaction } from "kysely";
import { addUsage } from "../billing/usage.ts";
import type { IngestedBlock } from "../chain/block.ts";
import type { Config } from "../config/schema.ts";
import type { Executor } from "../db/database.ts";
import type { DB } from "../db/schema.ts";
import { rfc3339 } from "../lib/time.ts";
import { syncSubscriptions } from "../watch/block-subscriptions.ts";
import { existingDedupeKeys, insertEvents, nextEventSeq } from "../watch/events.ts";
import { watchersOf, watchesByAddress } from "../watch/watchers.ts";
import { subscribersOf } from "../webhooks/fan-out.ts";
import { type NetworkView, type PlannedEvent, planEvents } from "./plan-events.ts";

// The events stage of the pipeline (pipeline.ts). Who watches what is read before the write
// transaction (SQLite has one writer: keep it short); inside it, the blocks that became canonical
// get their events (planned by plan-events.ts), each stored once and counted in the usage series.

/** What the matching reads found, per network of the batch. */
export type NetworkViews = Map<string, NetworkView>;

/** The accounts watching each network of the batch and the watches of every address it names there. */
export async function readNetworkViews(db: Executor, config: Config, blocks: readonly IngestedBlock[]): Promise<NetworkViews> {
  const views: NetworkViews = new Map();
  for (const network of new Set(blocks.map((b) => b.network))) views.set(network, await readNetwork(db, config, network, blocks));
  return views;
}

async function readNetwork(db: Executor, config: Config, network: string, blocks: readonly IngestedBlock[]): Promise<NetworkView> {
  const { decimals, family } = config.networks[network];
  const accounts = await watchersOf(db, network);
  const endpoints = await subscribersOf(db, accounts);
  const watchers = accounts.map((accountId) => ({ accountId, endpoints: endpoints.get(accountId) ?? [] }));
  // Nobody watches this network: no address can match, skip the lookups.
  if (watchers.length === 0) return { decimals, family, watchers, watches: new Map() };
  const addresses = new Set<string>();
  for (const b of blocks) {
    if (b.network !== network) continue;
    for (const tx of b.transactions) {
      if (tx.from !== null) addresses.add(tx.from);
      if (tx.to !== null) addresses.add(tx.to);
      for (const m of tx.movements) {
        if (m.from !== null) addresses.add(m.from);
        if (m.to !== null) addresses.add(m.to);
      }
    }
  }
  return { decimals, family, watchers, watches: await watchesByAddress(db, network, addresses) };
}

/** The events a batch stored, and how many the accounts received (a block event once per watching account). */
export type StoredEvents = { events: PlannedEvent[]; received: number };

/**
 * Stores the events of the blocks that became canonical, in block order. A transaction seen before
 * (in another block, or twice in this batch) gives its wallet events once.
 */
export async function storeEvents(trx: Transaction<DB>, blocks: readonly IngestedBlock[], views: NetworkViews, nowMs: number): Promise<StoredEvents> {
  // The batch's block events go to the accounts watching now; they all get seq >= firstSeq.
  const firstSeq = await nextEventSeq(trx);
  for (const network of new Set(blocks.map((b) => b.network))) {
    await syncSubscriptions(trx, network, (views.get(network) as NetworkView).watchers.map((w) => w.accountId), firstSeq);
  }

  const createdAt = rfc3339(nowMs);
  const planned: PlannedEvent[] = [];
  for (const block of blocks) {
    const view = views.get(block.network) as NetworkView;
    if (view.watchers.length === 0) continue;
    planned.push(...planEvents(block, view, createdAt, nowMs));
  }

  const walletKeys = planned.filter((p) => p.row.type !== "block").map((p) => p.row.dedupe_key);
  const taken = await existingDedupeKeys(trx, walletKeys);
  const events = planned.filter((p) => {
    if (taken.has(p.row.dedupe_key)) return false;
    taken.add(p.row.dedupe_key);
    return true;
  });
  await insertEvents(trx, events.map((p) => p.row));
  return { events, received: await addEventUsage(trx, events, nowMs) };
}

/** Adds the events each account received to its usage of the day (a block event reaches every watching account); returns the total. */
async function addEventUsage(trx: Transaction<DB>, events: PlannedEvent[], nowMs: number): Promise<number> {
  const counts = new Map<string, { events: number }>();
  let total = 0;
  for (const p of events) {
    for (const accountId of p.recipients) {
      const c = counts.get(accountId);
      if (c) c.events++;
      else counts.set(accountId, { events: 1 });
    }
    total += p.recipients.length;
  }
  await addUsage(trx, nowMs, counts);
  return total;
}
