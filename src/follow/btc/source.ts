import { type BtcFetched, fetchedBlock } from "./block.ts";
import { type BtcClient, BtcRpcError } from "./client.ts";
import { checkBlock, checkBlockCount, checkBlockHash, type MoneyLimit } from "./shape.ts";

/** What the follower reads from a Bitcoin Core node. */
export type BtcSource = {
  /** The node's newest height. */
  head(): Promise<number>;
  /** The node's block hash at a height (lower-case), or null when it has no block there. */
  hashAt(height: number): Promise<string | null>;
  /** The block at a height with every transaction's inputs and outputs, or null when the node has no block there yet. */
  fetch(height: number): Promise<BtcFetched | null>;
};

// getblockhash of a height above the tip: "Block height out of range".
const RPC_INVALID_PARAMETER = -8;

/**
 * Reads Bitcoin Core's JSON-RPC: `getblockcount` for the head, `getblockhash` for a height's hash,
 * and a block as `getblockhash` then `getblock <hash> 2` (every transaction decoded, with its
 * inputs' outpoints and its outputs' amounts and addresses). Needs no `-txindex`: a block's own
 * transactions are all it reads. Every answer is shape-checked (shape.ts) before it is used,
 * its outputs held to the network's `limit`.
 */
export function createBtcSource(client: BtcClient, limit: MoneyLimit): BtcSource {
  /** getblockhash; null when the node has no block at the height. */
  const hashOf = async (rpc: BtcClient, height: number): Promise<string | null> => {
    try {
      return checkBlockHash(height, await rpc.call("getblockhash", [height]));
    } catch (e) {
      if (e instanceof BtcRpcError && e.code === RPC_INVALID_PARAMETER) return null;
      throw e;
    }
  };

  return {
    async head() {
      return checkBlockCount(await client.call("getblockcount", []));
    },
    hashAt: (height) => hashOf(client, height),
    async fetch(height) {
      // The answers' sizes travel with the block: the follower bounds its read-ahead by them.
      const read = { bytes: 0 };
      const metered = client.metered(read);
      const hash = await hashOf(metered, height);
      if (hash === null) return null;
      // By hash, not height: a reorg between the two calls still yields the block the hash names,
      // which the follower then links (or not) by its parent like any other.
      const block = checkBlock(height, hash, await metered.call("getblock", [hash, 2]), limit);
      return fetchedBlock(block, read.bytes);
    },
  };
}
