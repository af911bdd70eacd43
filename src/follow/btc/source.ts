import { type BtcFetched, fetchedBlock } from "./block.ts";
import { type BtcClient, BtcRpcError } from "./client.ts";
import { blockAmounts, checkBlock, checkBlockCount, checkBlockHash, type MoneyLimit } from "./shape.ts";

/** What the follower reads from a Bitcoin Core node. */
export type BtcSource = {
  /** The node's newest height. */
  head(): Promise<number>;
  /** The node's block hash at a height (lower-case), or null when it has no block there. */
  hashAt(height: number): Promise<string | null>;
  /**
   * The block at a height with every transaction's inputs and outputs, or null when the node has no
   * block there yet; `answered` is called once the node has answered its getblock.
   */
  fetch(height: number, answered?: () => void): Promise<BtcFetched | null>;
};

// getblockhash of a height above the tip: "Block height out of range".
const RPC_INVALID_PARAMETER = -8;

/** Heights whose hashes one getblockhash batch asks for at most: a catch-up's batch of blocks. */
export const HASHES_AHEAD = 32;

/**
 * Reads Bitcoin Core's JSON-RPC: `getblockcount` for the head, `getblockhash` for a height's hash,
 * and a block as `getblockhash` then `getblock <hash> 2` (every transaction decoded, with its
 * inputs' outpoints and its outputs' amounts and addresses), the hashes of the heights below the
 * head asked ahead in batches (lookAhead). Needs no `-txindex`: a block's own transactions are all
 * it reads. Every answer is shape-checked (shape.ts) before it is used, its outputs held to the
 * network's `limit`.
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

  /** The node's head as last asked: hashes are looked up ahead only up to it. */
  let head = -1;
  /** Hashes looked up ahead, by height, each used by one fetch; forgotten when the head or a hash is asked. */
  const ahead = new Map<number, Promise<string | null>>();
  /** The highest height whose hash was looked up ahead (-1: none since the last forgetting). */
  let lookedUpTo = -1;
  /** Off for good once a batch failed where the call alone then answered (a provider that caps or refuses batches). */
  let lookingAhead = true;
  const forget = () => {
    ahead.clear();
    lookedUpTo = -1;
  };

  /**
   * Asks the hashes of `from` and the heights after it, up to HASHES_AHEAD of them and not past
   * the head, in one batch, so a catch-up makes one request a block (getblock) instead of two.
   */
  const lookAhead = (from: number): void => {
    const heights: number[] = [];
    for (let h = from; h <= head && h < from + HASHES_AHEAD; h++) if (!ahead.has(h)) heights.push(h);
    if (heights.length === 0) return;
    lookedUpTo = Math.max(lookedUpTo, heights[heights.length - 1]);
    const answers = client.callEach("getblockhash", heights.map((h) => [h]));
    heights.forEach((h, i) => {
      const hash = answers.then((list) => {
        const answer = list[i];
        if ("result" in answer) return checkBlockHash(h, answer.result);
        if (answer.error.code === RPC_INVALID_PARAMETER) return null;
        throw answer.error;
      });
      // A hash looked up and never used (the run ended first) is no unhandled rejection.
      hash.catch(() => {});
      ahead.set(h, hash);
    });
  };

  /** A height's hash asked alone after its batch failed: when that answers, the batch was the trouble, and batches stop. */
  const alone = async (rpc: BtcClient, height: number): Promise<string | null> => {
    const hash = await hashOf(rpc, height);
    lookingAhead = false;
    forget();
    return hash;
  };

  return {
    async head() {
      head = checkBlockCount(await client.call("getblockcount", []));
      forget();
      return head;
    },
    hashAt(height) {
      // Asked when the follower checks its tip or walks back a fork: what it reads next is looked up afresh.
      forget();
      return hashOf(client, height);
    },
    async fetch(height, answered) {
      // The answers' sizes travel with the block: the follower bounds its read-ahead by them.
      const read = { bytes: 0 };
      const metered = client.metered(read);
      if (lookingAhead && height <= head) {
        if (!ahead.has(height)) lookAhead(height);
        // Half the hashes asked ahead are used: the next ones are asked while blocks are read, so
        // no read waits for them (a remote node's round trip each HASHES_AHEAD blocks otherwise).
        else if (lookedUpTo < head && lookedUpTo - height < HASHES_AHEAD / 2) lookAhead(lookedUpTo + 1);
      }
      const looked = ahead.get(height);
      ahead.delete(height);
      const hash = looked ? await looked.catch(async () => alone(metered, height)) : await hashOf(metered, height);
      if (hash === null) return null;
      // By hash, not height: a reorg between the two calls still yields the block the hash names,
      // which the follower then links (or not) by its parent like any other.
      const block = checkBlock(height, hash, await metered.call("getblock", [hash, 2], { sites: blockAmounts, onAnswer: answered }), limit);
      return fetchedBlock(block, read.bytes);
    },
  };
}
