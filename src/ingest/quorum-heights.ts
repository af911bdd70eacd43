import { sql } from "kysely";
import type { Config } from "../config/schema.ts";
import type { Executor } from "../db/database.ts";
import { addNotices, resolveNotices } from "../notices/notices.ts";
import { highestHeldRelease } from "../delivery/outbox.ts";
import { highestDueTransfer } from "../payments/due-transfers.ts";
import { networkTips } from "./blocks.ts";
import type { Reorg } from "./reorg.ts";

// Upstream quorum (docs/chains.md): on a network with `quorum` > 1, an event counts as confirmed
// only at or below the network's quorum height, the highest height whose stored block hash
// `quorum` upstreams returned. A block hash names its whole chain, so agreement at a height covers
// every block below it. Stages 4 and 5 of the pipeline (held deliveries, payment orders, late
// payments) count confirmations against the tip capped at that height (confirmationTips); the
// follower raises it once the upstreams agree (pipeline.ts: confirmQuorum).

/** A network's quorum height, or null when no height is agreed yet. */
export async function quorumHeight(db: Executor, network: string): Promise<number | null> {
  const row = await db.selectFrom("quorum_heights").select("height").where("network", "=", network).executeTakeFirst();
  return row ? Number(row.height) : null;
}

/**
 * The tips confirmations count against, of these networks: each one's stored tip, capped at its
 * quorum height where `quorum` > 1 (below every height, -1, before any agreement: nothing
 * confirms). Whatever holds an event for min_confirmations reads these (the ingest and a replay
 * alike), so no event counts as confirmed on one upstream's word.
 */
export async function confirmationTips(db: Executor, config: Pick<Config, "networks">, networks: Iterable<string>): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const [network, tip] of await networkTips(db, networks)) {
    if ((config.networks[network]?.quorum ?? 1) <= 1) out.set(network, tip);
    else out.set(network, Math.min(tip, (await quorumHeight(db, network)) ?? -1));
  }
  return out;
}

/** Raises a network's quorum height to `height` (never lowers it: see lowerForReorgs). */
export async function raiseQuorumHeight(db: Executor, network: string, height: number, nowMs: number): Promise<void> {
  await db
    .insertInto("quorum_heights")
    .values({ network, height, updated_at: nowMs })
    .onConflict((oc) => oc.column("network").doUpdateSet({ height: sql`case when excluded.height > quorum_heights.height then excluded.height else quorum_heights.height end`, updated_at: nowMs }))
    .execute();
}

/**
 * A reorg replaced the blocks from `fromHeight` up: what the upstreams agreed on there is no longer
 * what is stored, so the quorum height drops below them and the new blocks wait for agreement.
 */
export async function lowerForReorgs(db: Executor, reorgs: readonly Reorg[], nowMs: number): Promise<void> {
  for (const r of reorgs) {
    await db
      .updateTable("quorum_heights")
      .set({ height: r.fromHeight - 1, updated_at: nowMs })
      .where("network", "=", r.network)
      .where("height", ">=", r.fromHeight)
      .execute();
  }
}

/**
 * The highest height at or below `tip` the quorum must vouch for so that everything due by then
 * confirms — an order's transfer at `confirmations` depth, a delivery's release height — or null
 * when nothing above the quorum height waits. Agreement there covers every lower block too.
 */
export async function heightToAgree(db: Executor, network: string, confirmations: number, tip: number): Promise<number | null> {
  const agreed = (await quorumHeight(db, network)) ?? -1;
  if (tip <= agreed) return null;
  const transfer = await highestDueTransfer(db, network, tip - confirmations + 1);
  const release = await highestHeldRelease(db, network, tip);
  const due = Math.max(transfer === null ? -1 : transfer + confirmations - 1, release ?? -1);
  return due > agreed ? due : null;
}

/**
 * Tells every account with something waiting for the quorum on `network` (a held delivery, an
 * order's or a late payment's unconfirmed transfer) that it waits, with `message`, in a
 * `quorum_waiting` notice; returns the accounts told, whose notices the agreement resolves.
 */
export async function raiseQuorumNotices(db: Executor, network: string, message: string, nowMs: number): Promise<string[]> {
  const held = await db.selectFrom("deliveries").select("account_id").distinct().where("network", "=", network).where(sql<boolean>`status = 'held'`).execute();
  const paying = await db
    .selectFrom("payment_transfers as t")
    .innerJoin("payments as p", "p.id", "t.payment_id")
    .select("p.account_id")
    .distinct()
    .where("t.confirmed", "=", 0)
    .where("p.network", "=", network)
    .execute();
  const accounts = [...new Set([...held.map((r) => r.account_id), ...paying.map((r) => r.account_id)])];
  await addNotices(db, accounts.map((accountId) => ({ accountId, type: "quorum_waiting", message, deliveryId: null, createdAt: nowMs })));
  return accounts;
}

/** The quorum agreed: the `quorum_waiting` notices of these accounts are resolved. */
export async function resolveQuorumNotices(db: Executor, accountIds: readonly string[], nowMs: number): Promise<void> {
  await resolveNotices(db, { type: "quorum_waiting", accountIds }, nowMs);
}
