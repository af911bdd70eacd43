import type { CompiledQuery } from "kysely";

// The hot-path statements of the stored chain, `blocks` and `watched_outputs` (why hand-written:
// `src/db/statements.ts`): what a follower reads of the stored chain before each poll and block,
// and what the spent-output index reads and writes once per block. What each does, here; each
// dialect's text in `sqlite.ts` and `postgres.ts` beside this file, which bind the same
// parameters. Every read of canonical blocks spells `status = 'canonical'` in its text: SQLite
// uses the partial index blocks_canonical_height only when the query states its condition itself.

/** A stored block as the chain reads return it (heights may come back as strings on PostgreSQL). */
export type BlockRow = { hash: string; height: number | string; parent_hash: string | null };

/** A recorded output as the spent-output index reads it. */
export type OutputRow = { txid: string; vout: number | string; address: string; value_raw: string };

/** An output to a watched address, as recorded. */
export type NewOutput = { network: string; txid: string; vout: number; address: string; value_raw: string; block_hash: string; height: number };

/** The hand-written statements of the stored chain. Those over a list take at most what their caller chunks them to. */
export type ChainStatements = {
  /** The highest canonical block of a network (no row before the first). */
  selectCanonicalTip(network: string): CompiledQuery<BlockRow>;
  /** The canonical blocks of a network with `fromHeight <= height <= toHeight`, ascending. */
  selectCanonicalBlocks(network: string, fromHeight: number, toHeight: number): CompiledQuery<BlockRow>;
  /** The recorded outputs of these transactions on a network, spent ones too. */
  selectRecordedOutputs(network: string, txids: readonly string[]): CompiledQuery<OutputRow>;
  /** Records outputs of one block; an outpoint recorded before (in another block) moves to this one. */
  upsertOutputs(rows: readonly NewOutput[], blockHash: string, height: number): CompiledQuery;
};

/** The columns an output insert writes, in the order `outputParams` binds them. */
export const OUTPUT_COLUMNS = "network, txid, vout, address, value_raw, block_hash, height";

/** The parameters of a multi-row upsert of outputs: seven a row, then the block's hash and height. */
export function outputParams(rows: readonly NewOutput[], blockHash: string, height: number): unknown[] {
  const params: unknown[] = [];
  for (const r of rows) params.push(r.network, r.txid, r.vout, r.address, r.value_raw, r.block_hash, r.height);
  params.push(blockHash, height);
  return params;
}
