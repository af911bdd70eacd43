import { hexToBigInt, hexToNumber, type RpcBlock, type RpcLog, type RpcTransaction, type RpcTransactionReceipt, toEventSelector } from "viem";
import type { IngestedBlock, IngestedTx } from "../../chain/block.ts";
import { nativeMovement, type TokenTransfer, transferMovements } from "../../chain/movements.ts";
import { nftTransfers } from "./nft-logs.ts";
import type { InternalMove } from "./traces.ts";

// Pure: an EVM node's checked block and receipts → the block the ingest takes (chain/block.ts),
// in matching form: hashes and addresses lower-case. No I/O.

/** A block with full transaction objects, as eth_getBlockByNumber(h, true) answers. */
export type RpcFullBlock = RpcBlock<"latest", true, RpcTransaction>;

/** One height as read from the node: the block, a receipt for each of its transactions, and the bytes of the node's answers they came in. */
export type FetchedBlock = {
  height: number;
  hash: string;
  parentHash: string;
  block: RpcFullBlock;
  receipts: RpcTransactionReceipt[];
  bytes: number;
  /** With tracing on: the native value each transaction's calls moved, by transaction hash (traces.ts). */
  internal?: Map<string, InternalMove[]>;
};

/** A token's decimals as far as they are known: config, cache or decimals(); null = unknown (amounts stay in raw units). */
export type DecimalsOf = (contract: string) => number | null;

const TRANSFER_TOPIC = toEventSelector("Transfer(address,address,uint256)");

export type Erc20Transfer = { asset: string; from: string; to: string; value: bigint };

// A receipt's logs are decoded twice otherwise: for the token decimals while fetching, and for the
// block at commit. Keyed by the logs array itself, so the entry goes with the receipt.
const decoded = new WeakMap<readonly RpcLog[], Erc20Transfer[]>();

/** Status 0 = reverted. Receipts from before Byzantium carry a state root and no status: they count as executed. */
export function reverted(receipt: RpcTransactionReceipt): boolean {
  return receipt.status !== undefined && receipt.status !== null && hexToNumber(receipt.status as `0x${string}`) === 0;
}

// "0x" and one 32-byte word: the shortest data a uint256 decodes from.
const WORD_DATA_LENGTH = 2 + 64;

/**
 * The ERC-20 transfers a log list holds: `Transfer(address indexed, address indexed, uint256)`, so
 * three topics, each address the low 20 bytes of its topic, and the value the first 32 bytes of
 * the data. ERC-721 emits the same topic with the token id indexed (four topics, no data), and a
 * log whose data holds less than a word decodes no amount: neither becomes a fungible transfer.
 * Decoded by hand from the checked answer (shape.ts: every topic is 32 bytes of hex, data whole
 * bytes): viem's decodeEventLog reads the same fields but hashes the event's signature and
 * checksums both addresses for every log, most of a block's decoding time.
 */
export function erc20Transfers(logs: readonly RpcLog[]): Erc20Transfer[] {
  const known = decoded.get(logs);
  if (known) return known;
  const out: Erc20Transfer[] = [];
  for (const log of logs) {
    const topics = log.topics;
    if (topics[0] !== TRANSFER_TOPIC || topics.length !== 3 || log.data.length < WORD_DATA_LENGTH) continue;
    out.push({
      asset: log.address.toLowerCase(),
      from: `0x${(topics[1] as string).slice(26).toLowerCase()}`,
      to: `0x${(topics[2] as string).slice(26).toLowerCase()}`,
      value: BigInt(`0x${log.data.slice(2, WORD_DATA_LENGTH)}`),
    });
  }
  decoded.set(logs, out);
  return out;
}

/** The contracts that emitted ERC-20 transfers in the executed transactions of these receipts. */
export function tokenContracts(receipts: readonly RpcTransactionReceipt[]): Set<string> {
  const out = new Set<string>();
  for (const r of receipts) {
    if (reverted(r)) continue;
    for (const t of erc20Transfers(r.logs)) out.add(t.asset);
  }
  return out;
}

/**
 * Checks that the node's receipts belong to the block (one per transaction, same hashes) and
 * returns them keyed by transaction hash. Throws on a mismatch: a node serving a block that
 * changed between the two calls must be asked again, not half-believed.
 */
export function receiptsByTx(fetched: Pick<FetchedBlock, "block" | "receipts" | "height">): Map<string, RpcTransactionReceipt> {
  const byTx = new Map(fetched.receipts.map((r) => [r.transactionHash.toLowerCase(), r]));
  for (const tx of fetched.block.transactions) {
    const r = byTx.get(tx.hash.toLowerCase());
    if (!r) throw new Error(`block ${fetched.height}: no receipt for transaction ${tx.hash}`);
    if (r.blockHash.toLowerCase() !== (fetched.block.hash as string).toLowerCase()) throw new Error(`block ${fetched.height}: receipt of ${tx.hash} is from another block`);
  }
  return byTx;
}

/**
 * The block as the ingest takes it: the native value as movement 0, then each ERC-20 transfer
 * with its token's decimals, then each NFT move (nft-logs.ts), each in log order, then the native
 * value its calls moved when the block was traced (traces.ts), in the order they ran. ERC-20
 * transfers come first whatever the logs' order, so their movement numbers (and so their events'
 * dedupe keys) are what they were before NFTs were read, and neither moves when tracing is
 * switched on. A reverted transaction stays in the block (it
 * names its sender and recipient) but moves nothing, since its logs never happened.
 */
export function ingestedBlockOf(network: string, fetched: FetchedBlock, decimalsOf: DecimalsOf): IngestedBlock {
  const byTx = receiptsByTx(fetched);
  const transactions = fetched.block.transactions.map((tx): IngestedTx => {
    const receipt = byTx.get(tx.hash.toLowerCase()) as RpcTransactionReceipt;
    const from = tx.from.toLowerCase();
    // A contract creation has no `to`; the created contract is not a recipient of the value.
    const to = tx.to?.toLowerCase() ?? null;
    if (reverted(receipt)) return { hash: tx.hash.toLowerCase(), from, to, movements: [] };
    const transfers: TokenTransfer[] = erc20Transfers(receipt.logs).map((t) => ({ ...t, decimals: decimalsOf(t.asset) }));
    for (const t of nftTransfers(receipt.logs)) transfers.push({ ...t, decimals: 0 });
    for (const m of fetched.internal?.get(tx.hash.toLowerCase()) ?? []) transfers.push({ asset: null, from: m.from, to: m.to, value: m.value, decimals: null, internal: true });
    return { hash: tx.hash.toLowerCase(), from, to, movements: [...nativeMovement(from, to, hexToBigInt(tx.value)), ...transferMovements(transfers)] };
  });
  return {
    network,
    height: fetched.height,
    hash: fetched.hash,
    parentHash: fetched.parentHash,
    timestamp: hexToNumber(fetched.block.timestamp),
    transactions,
  };
}
