import type { TronAddressBook } from "./address-book.ts";
import { blockWithoutInfos, joinBlock, type TronFetched } from "./block.ts";
import type { TronAnswer, TronClient } from "./client.ts";
import { checkBlock, checkHeader, checkInfos, InexactNumber, isEmptyAnswer, parseExact } from "./shape.ts";

/** What the follower reads from a java-tron node. */
export type TronSource = {
  /** The node's newest height. */
  head(): Promise<number>;
  /** The node's block id at a height, or null when it has no block there. */
  hashAt(height: number): Promise<string | null>;
  /** The block at a height with every transaction's execution result, or null when the node has no block there yet. */
  fetch(height: number): Promise<TronFetched | null>;
};

/**
 * Reads java-tron's HTTP API, at most two requests a block whatever its size: `/wallet/getblockbynum`
 * (the block with its transactions, `visible: true` so addresses come as `T…`) and, when the block
 * has transactions, `/wallet/gettransactioninfobyblocknum` (every transaction's result and logs).
 * Both go by number, so while blocks come with transactions the two are asked at once: one round
 * trip a block. After a block without any, the next block's infos wait for its transactions, so a
 * quiet chain costs one request a block, not two.
 * The head and the block ids of a walk-back come from `/wallet/getblock` with `detail: false`: the
 * header alone, not the head block's hundreds of transactions on every poll. Every answer is
 * shape-checked (shape.ts) before it is used.
 */
export function createTronSource(client: TronClient, book: TronAddressBook): TronSource {
  /** Checks an answer; one holding an integer beyond 2^53 is parsed again from its text, keeping the digits. */
  const exactly = <T>(answer: TronAnswer, check: (json: unknown) => T): T => {
    try {
      return check(answer.json);
    } catch (e) {
      if (!(e instanceof InexactNumber)) throw e;
      return check(parseExact(answer.text));
    }
  };

  /** Whether the last block read had transactions: the next one's infos are then asked beside it. */
  let busy = true;

  return {
    async head() {
      const answer = await client.post("/wallet/getblock", { detail: false, visible: true });
      if (isEmptyAnswer(answer.json)) throw new Error("the node has no head block (/wallet/getblock answered {})");
      return checkHeader(null, answer.json, book).height;
    },
    async hashAt(height) {
      const answer = await client.post("/wallet/getblock", { id_or_num: String(height), detail: false, visible: true });
      if (isEmptyAnswer(answer.json)) return null;
      return checkHeader(height, answer.json, book).hash;
    },
    async fetch(height) {
      // The answers' sizes travel with the block: the follower bounds its read-ahead by them.
      const read = { bytes: 0 };
      const metered = client.metered(read);
      const askInfos = () => metered.post("/wallet/gettransactioninfobyblocknum", { num: height, visible: true });
      // The node keeps no transaction info below height 1 (it answers {} there).
      const early = busy && height > 0 ? askInfos() : null;
      // Not awaited when the block turns out empty or cannot be read: no unhandled rejection.
      early?.catch(() => {});
      const answer = await metered.post("/wallet/getblockbynum", { num: height, visible: true });
      if (isEmptyAnswer(answer.json)) return null;
      const block = exactly(answer, (json) => checkBlock(height, json, book));
      busy = block.transactions.length > 0;
      if (block.transactions.length === 0 || height === 0) return blockWithoutInfos(block, read.bytes);
      const infos = await (early ?? askInfos());
      // Both asked by number: infos of another block at the height (it changed between the two) fail the join, and the height is read again.
      return joinBlock(block, checkInfos(height, infos.json, book), book, read.bytes);
    },
  };
}
