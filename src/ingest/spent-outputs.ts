import type { Transaction } from "kysely";
import type { IngestedBlock, Movement } from "../chain/block.ts";
import { type BlockRef, orphanedByNetwork } from "../chain/chain-change.ts";
import type { DB } from "../db/schema.ts";
import { watchesByAddress } from "../watch/watchers.ts";
import { chainStatements } from "./sql/dialects.ts";
import type { NewOutput } from "./sql/statements.ts";
import type { NetworkViews } from "./store-events.ts";

// The spent-output index of UTXO chains (docs/chains.md), a stage of the ingest pipeline
// between the canonical chain and the events. An input names only the outpoint it spends, not the
// address or value (a node without -txindex cannot look them up), so the ingest keeps the outputs
// that paid a watched address; a later input spending one is a payout of that address. Rows are
// written in the transaction of the block that created or spent them and undone with it on a reorg.

/** Outpoints per IN (…) list: far below SQLite's bound-parameter cap. */
const CHUNK = 400;

type Row = { txid: string; vout: number; address: string; value_raw: string };

/**
 * Undoes what orphaned blocks did to the index: outputs they created are forgotten, outputs they
 * spent are unspent again. Runs before the new canonical blocks are applied.
 */
export async function undoOrphanedOutputs(trx: Transaction<DB>, orphaned: readonly BlockRef[]): Promise<void> {
  for (const { network, hashes } of orphanedByNetwork(orphaned)) {
    const list = [...hashes];
    for (let i = 0; i < list.length; i += CHUNK) {
      const slice = list.slice(i, i + CHUNK);
      await trx.deleteFrom("watched_outputs").where("network", "=", network).where("block_hash", "in", slice).execute();
      await trx
        .updateTable("watched_outputs")
        .set({ spent_txid: null, spent_block_hash: null })
        .where("network", "=", network)
        .where("spent_block_hash", "in", slice)
        .execute();
    }
  }
}

/**
 * For each new canonical block in batch order: records its outputs that pay a watched address,
 * then finds which of its inputs spend recorded outputs, marks them spent, and adds a payout
 * movement per address and transaction to the block model (the events stage matches it like any
 * other). The views learn the watches of the addresses paid out from, which the reads before the
 * transaction could not know. Blocks of other chains (no outputs, no spends) cost nothing.
 */
export async function applyOutputs(trx: Transaction<DB>, blocks: readonly IngestedBlock[], views: NetworkViews): Promise<void> {
  // Whether a network has any recorded output: a chain nobody has watched skips the input look-ups.
  const recorded = new Map<string, boolean>();
  for (const block of blocks) {
    if (!block.transactions.some((tx) => tx.outputs || tx.spends)) continue;
    const view = views.get(block.network);
    if (await recordOutputs(trx, block, (address) => (view?.watches.get(address)?.length ?? 0) > 0)) recorded.set(block.network, true);
    if (!recorded.has(block.network)) recorded.set(block.network, await hasRecordedOutputs(trx, block.network));
    if (!recorded.get(block.network)) continue;
    const spentFrom = await spendOutputs(trx, block);
    if (view && spentFrom.size > 0) {
      const unknown = [...spentFrom].filter((a) => !view.watches.has(a));
      for (const [address, refs] of await watchesByAddress(trx, block.network, unknown)) view.watches.set(address, refs);
    }
  }
}

/** Stores the block's outputs to watched addresses (one seen before in another block moves to this one); true when there were any. */
async function recordOutputs(trx: Transaction<DB>, block: IngestedBlock, watched: (address: string) => boolean): Promise<boolean> {
  const rows: NewOutput[] = [];
  for (const tx of block.transactions) {
    for (const o of tx.outputs ?? []) {
      if (o.address === null || !watched(o.address)) continue;
      rows.push({ network: block.network, txid: tx.hash, vout: o.vout, address: o.address, value_raw: o.value.toString(), block_hash: block.hash, height: block.height });
    }
  }
  for (let i = 0; i < rows.length; i += CHUNK) {
    await trx.executeQuery(chainStatements(trx).upsertOutputs(rows.slice(i, i + CHUNK), block.hash, block.height));
  }
  return rows.length > 0;
}

async function hasRecordedOutputs(trx: Transaction<DB>, network: string): Promise<boolean> {
  return (await trx.selectFrom("watched_outputs").select("txid").where("network", "=", network).limit(1).executeTakeFirst()) !== undefined;
}

/** Marks the recorded outputs the block's inputs spend, adds the payouts to its transactions, and returns the addresses paid out from. */
async function spendOutputs(trx: Transaction<DB>, block: IngestedBlock): Promise<Set<string>> {
  const txids = new Set<string>();
  for (const tx of block.transactions) for (const s of tx.spends ?? []) txids.add(s.txid);
  const known = await recordedOutputs(trx, block.network, [...txids]);
  const addresses = new Set<string>();
  if (known.size === 0) return addresses;
  // Most inputs spend a transaction with no recorded output: told by its txid, before any key is built.
  const knownTxids = new Set<string>();
  for (const row of known.values()) knownTxids.add(row.txid);
  for (const tx of block.transactions) {
    const found: { input: number; row: Row }[] = [];
    const spends = tx.spends ?? [];
    for (let input = 0; input < spends.length; input++) {
      const s = spends[input];
      const row = knownTxids.has(s.txid) ? known.get(outpointKey(s.txid, s.vout)) : undefined;
      if (row !== undefined) found.push({ input, row });
    }
    if (found.length === 0) continue;
    for (const s of found) {
      await trx
        .updateTable("watched_outputs")
        .set({ spent_txid: tx.hash, spent_block_hash: block.hash })
        .where("network", "=", block.network)
        .where("txid", "=", s.row.txid)
        .where("vout", "=", s.row.vout)
        .execute();
      addresses.add(s.row.address);
    }
    tx.movements.push(...payouts(found));
  }
  return addresses;
}

/**
 * What a transaction spends of each watched address: the sum of the outputs it spends, gross (change
 * paid back to the same address is a payment of its own), indexed −(i+1) by the address's first input i.
 */
function payouts(found: { input: number; row: Row }[]): Movement[] {
  const byAddress = new Map<string, Movement>();
  for (const { input, row } of found) {
    const m = byAddress.get(row.address);
    if (m) m.value += BigInt(row.value_raw);
    else byAddress.set(row.address, { index: -(input + 1), asset: null, from: row.address, to: null, value: BigInt(row.value_raw), decimals: null });
  }
  return [...byAddress.values()];
}

/** The recorded outputs of these transactions, by outpoint (spent ones too: a reorg may spend one again). */
async function recordedOutputs(trx: Transaction<DB>, network: string, txids: string[]): Promise<Map<string, Row>> {
  const out = new Map<string, Row>();
  for (let i = 0; i < txids.length; i += CHUNK) {
    const { rows } = await trx.executeQuery(chainStatements(trx).selectRecordedOutputs(network, txids.slice(i, i + CHUNK)));
    for (const r of rows) out.set(outpointKey(r.txid, Number(r.vout)), { ...r, vout: Number(r.vout) });
  }
  return out;
}

const outpointKey = (txid: string, vout: number) => `${txid}:${vout}`;
