import { decodeAbiParameters, type Hex, type RpcLog, toEventSelector } from "viem";
import type { NftToken } from "../../chain/block.ts";

// Pure: the NFT moves a receipt's logs hold, ERC-721 and ERC-1155, in log order. No I/O.

/** ERC-721's `Transfer` has ERC-20's topic0; the token id as a fourth topic (and no data) tells it apart. */
const TRANSFER = toEventSelector("Transfer(address,address,uint256)");
const TRANSFER_SINGLE = toEventSelector("TransferSingle(address,address,address,uint256,uint256)");
const TRANSFER_BATCH = toEventSelector("TransferBatch(address,address,address,uint256[],uint256[])");
const ID_AND_VALUE_LENGTH = 2 + 2 * 64;
const BATCH_PARAMS = [{ type: "uint256[]" }, { type: "uint256[]" }] as const;

/** One token id moved by an NFT contract (`asset`): `value` tokens of it (1 for ERC-721), addresses lower-case. */
export type NftTransfer = { asset: string; from: string; to: string; value: bigint; nft: NftToken };

// An indexed address is its 20 bytes left-padded with zeros to a 32-byte topic.
const ADDRESS_TOPIC_PAD = "0x000000000000000000000000";

/** The address an indexed topic holds; null when its upper 12 bytes are not zero (no address was indexed there). */
function addressOf(topic: string): string | null {
  return topic.startsWith(ADDRESS_TOPIC_PAD) ? `0x${topic.slice(26).toLowerCase()}` : null;
}

/**
 * The NFT moves of a log list, in log order: an ERC-721 `Transfer` (four topics, no data) moves
 * token `topics[3]`; an ERC-1155 `TransferSingle` moves `value` of token `id`; a `TransferBatch`
 * one move per id, in its order. A log of the right topic0 but another shape (an address topic
 * with bits above its 20 bytes, data of the wrong length, id and value lists of different
 * lengths) is no standard move and is left out, as a malformed ERC-20 `Transfer` is.
 */
export function nftTransfers(logs: readonly RpcLog[]): NftTransfer[] {
  const out: NftTransfer[] = [];
  for (const log of logs) {
    const topics = log.topics;
    if (topics.length !== 4) continue;
    const topic0 = topics[0];
    if (topic0 === TRANSFER) {
      const [from, to] = [addressOf(topics[1] as string), addressOf(topics[2] as string)];
      if (from === null || to === null || log.data !== "0x") continue;
      out.push({ asset: log.address.toLowerCase(), from, to, value: 1n, nft: { standard: "erc721", tokenId: BigInt(topics[3] as string) } });
    } else if (topic0 === TRANSFER_SINGLE || topic0 === TRANSFER_BATCH) {
      // topics[1] is the operator: who moved the tokens, not whose they were.
      const [from, to] = [addressOf(topics[2] as string), addressOf(topics[3] as string)];
      if (from === null || to === null) continue;
      const asset = log.address.toLowerCase();
      for (const [tokenId, value] of topic0 === TRANSFER_SINGLE ? singleMove(log.data) : batchMoves(log.data)) {
        out.push({ asset, from, to, value, nft: { standard: "erc1155", tokenId } });
      }
    }
  }
  return out;
}

/** `TransferSingle`'s data: the id and the value, one word each. */
function singleMove(data: Hex): [bigint, bigint][] {
  if (data.length !== ID_AND_VALUE_LENGTH) return [];
  return [[BigInt(`0x${data.slice(2, 66)}`), BigInt(`0x${data.slice(66)}`)]];
}

/** `TransferBatch`'s data: the ids and the values, paired in order; none when they do not decode or pair. */
function batchMoves(data: Hex): [bigint, bigint][] {
  let ids: readonly bigint[];
  let values: readonly bigint[];
  try {
    [ids, values] = decodeAbiParameters(BATCH_PARAMS, data);
  } catch {
    return [];
  }
  if (ids.length !== values.length) return [];
  return ids.map((id, i) => [id, values[i] as bigint]);
}
