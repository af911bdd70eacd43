import { numberToHex, type RpcTransactionReceipt } from "viem";
import type { FetchedBlock, RpcFullBlock } from "./block.ts";
import { checkBlock, checkHeadNumber, checkReceipts } from "./shape.ts";
import { type RpcClient, RpcError, type Settled } from "./client.ts";
import { debugInternalMoves, type InternalMove, parityInternalMoves, TRACE_MAX_DEPTH, traceCall, type TraceMode } from "./traces.ts";

/** What the follower reads from an EVM node. */
export type EvmSource = {
  /** The node's latest block number. */
  head(): Promise<number>;
  /** The node's hash at a height, or null when it has no block there. */
  hashAt(height: number): Promise<string | null>;
  /** The block at a height with full transactions and every receipt, or null when the node has no block there yet. */
  fetch(height: number): Promise<FetchedBlock | null>;
};

// Per-transaction receipts go in batches of this many calls (nodes cap batch sizes; 100 is common).
const RECEIPT_BATCH = 100;

/**
 * Reads blocks and receipts. Receipts come from `eth_getBlockReceipts`, asked by number in the
 * same batch as the block (one request a block); receipts that are not the block's own (a reorg
 * between the two calls) are asked again by the block's hash, and a node that refuses the number
 * is asked by hash from then on. When the node answers that with a JSON-RPC error too (a node or
 * provider without the method), the source switches to batched `eth_getTransactionReceipt` calls
 * for good. Every answer is shape-checked (shape.ts) before it is used: a malformed one throws
 * MalformedUpstreamData. With `traces` on, each block with transactions is also traced
 * (traces.ts); a node's error answer to the trace throws like any other, so the height is read
 * again.
 */
export function createEvmSource(rpc: RpcClient, traces: TraceMode = "off"): EvmSource {
  let blockReceipts = true;
  /** Whether the node takes eth_getBlockReceipts by number, asked beside the block; false after it refused once. */
  let receiptsByNumber = true;
  /** Whether the upstream takes a batch; false for good once one failed where the block alone was then read. */
  let batches = true;

  const perTxReceipts = async (rpc: RpcClient, block: RpcFullBlock): Promise<RpcTransactionReceipt[]> => {
    const out: RpcTransactionReceipt[] = [];
    for (let i = 0; i < block.transactions.length; i += RECEIPT_BATCH) {
      const calls = block.transactions.slice(i, i + RECEIPT_BATCH).map((tx) => ({ method: "eth_getTransactionReceipt", params: [tx.hash] }));
      out.push(...(await rpc.batch<RpcTransactionReceipt>(calls)));
    }
    return out;
  };

  const receiptsOf = async (rpc: RpcClient, block: RpcFullBlock): Promise<RpcTransactionReceipt[]> => {
    if (block.transactions.length === 0) return [];
    if (blockReceipts) {
      try {
        const receipts = await rpc.call<RpcTransactionReceipt[] | null>("eth_getBlockReceipts", [block.hash]);
        if (receipts) return receipts;
      } catch (e) {
        if (!(e instanceof RpcError) || e.code === null) throw e;
        blockReceipts = false;
      }
    }
    return perTxReceipts(rpc, block);
  };

  return {
    async head() {
      return checkHeadNumber(await rpc.call<unknown>("eth_blockNumber", []));
    },
    async hashAt(height) {
      const block = await rpc.call<{ hash: string } | null>("eth_getBlockByNumber", [numberToHex(height), false]);
      if (block === null) return null;
      checkBlock(height, block, false);
      return block.hash.toLowerCase();
    },
    async fetch(height) {
      // The answers' sizes travel with the block: the follower bounds its read-ahead by them.
      const read = { bytes: 0 };
      const metered = rpc.metered(read);
      const number = numberToHex(height);
      let block: RpcFullBlock | null;
      let receipts: RpcTransactionReceipt[] | null = null;
      // The block, its receipts and (with traces on) its trace in one request: one round trip a
      // block instead of two or three. The trace's depth bound holds for the whole answer.
      const batched = blockReceipts && receiptsByNumber && batches;
      const calls = [
        { method: "eth_getBlockByNumber", params: [number, true] },
        { method: "eth_getBlockReceipts", params: [number] },
        ...(traces === "off" ? [] : [traceCall(traces, height)]),
      ];
      const answers = batched ? await metered.settled<unknown>(calls, traces === "off" ? {} : { maxDepth: TRACE_MAX_DEPTH }).catch(() => null) : null;
      /** The trace's answer from the batch, when it came with one. */
      let traced: Settled<unknown> | undefined;
      if (answers) {
        const [b, r] = answers;
        traced = answers[2];
        if (!b.ok) throw b.error;
        block = b.result as RpcFullBlock | null;
        if (block === null) return null;
        checkBlock(height, block, true);
        // Asked by number, they may be another block's at the height (a reorg between the two
        // calls): those, or none, and they are asked again by the block's hash below.
        if (r.ok) receipts = ownReceipts(block, r.result);
        else receiptsByNumber = false;
      } else {
        block = await metered.call<RpcFullBlock | null>("eth_getBlockByNumber", [number, true]);
        // The batch failed where the block alone was read: an upstream that refuses or caps batches.
        if (batched) batches = false;
        if (block === null) return null;
        checkBlock(height, block, true);
      }
      receipts ??= await receiptsOf(metered, block);
      checkReceipts(height, receipts);
      const hash = (block.hash as string).toLowerCase();
      const internal = traces === "off" || block.transactions.length === 0 ? undefined : await internalOf(metered, traces, height, hash, block, traced);
      return { height, hash, parentHash: block.parentHash.toLowerCase(), block, receipts, bytes: read.bytes, ...(internal ? { internal } : {}) };
    },
  };
}

/** The block's trace in a request of its own. */
function traceAlone(rpc: RpcClient, mode: Exclude<TraceMode, "off">, height: number): Promise<unknown> {
  const call = traceCall(mode, height);
  return rpc.call<unknown>(call.method, call.params, { maxDepth: TRACE_MAX_DEPTH });
}

/**
 * Receipts asked by the block's number, when they are the block's own: one a transaction, each
 * naming the block's hash (their shape is checked after, as any receipts'). Else null.
 */
function ownReceipts(block: RpcFullBlock, value: unknown): RpcTransactionReceipt[] | null {
  if (!Array.isArray(value) || value.length !== block.transactions.length) return null;
  const hash = (block.hash as string).toLowerCase();
  for (const r of value) {
    const named = typeof r === "object" && r !== null ? (r as { blockHash?: unknown }).blockHash : undefined;
    if (typeof named !== "string" || named.toLowerCase() !== hash) return null;
  }
  return value as RpcTransactionReceipt[];
}

/**
 * The block's internal moves by transaction. Traced by number (the methods the modes name), so the
 * answer is checked against the block read just before: callTracer's results name each
 * transaction, trace_block's entries the block hash. A block that changed in between fails the
 * check and the height is read again.
 */
async function internalOf(
  rpc: RpcClient,
  mode: Exclude<TraceMode, "off">,
  height: number,
  hash: string,
  block: RpcFullBlock,
  /** The trace's answer already in hand (asked in the block's batch), else it is asked now. */
  traced?: Settled<unknown>,
): Promise<Map<string, InternalMove[]>> {
  if (traced && !traced.ok) throw traced.error;
  const answer = traced ? traced.result : await traceAlone(rpc, mode, height);
  if (mode === "parity") return parityInternalMoves(height, hash, answer);
  return debugInternalMoves(height, block.transactions.map((tx) => tx.hash.toLowerCase()), answer);
}
