import type { IngestedBlock, IngestedTx } from "../../chain/block.ts";
import { nativeMovement, transferMovements } from "../../chain/movements.ts";
import type { ReadBlock } from "../core/chain-reader.ts";
import type { TronAddressBook } from "./address-book.ts";
import type { TokenDecimals } from "../core/token-decimals.ts";
import type { TronHeader, TronLog, TronTx, TronTxInfo } from "./shape.ts";

// Pure: a Tron block and its transactions' execution results → the block the ingest takes
// (chain/block.ts), in matching form: hashes lower-case hex, addresses base58check `T…`. No I/O.

/** keccak256("Transfer(address,address,uint256)"), as TVM logs carry it: hex without 0x. */
export const TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

/** One TRC-20 `Transfer` log: the token contract and the addresses as `T…`, the value in the token's units. */
export type Trc20Transfer = { asset: string; from: string; to: string; value: bigint };

/** A transaction as the follower ingests it: whether it executed, and what it moved if it did. */
export type TronFetchedTx = { hash: string; from: string | null; to: string | null; value: bigint; executed: boolean; transfers: Trc20Transfer[] };

/** One height as read from the node: its header, its transactions, and the bytes of the answers they came in. */
export type TronFetched = ReadBlock & { timestamp: number; transactions: TronFetchedTx[] };

/** Results of the block's `ret`, or of a receipt, that mean the transaction ran to its end; null: left out (not a VM transaction). */
const SUCCEEDED = new Set([null, "SUCCESS", "DEFAULT"]);

/**
 * The TRC-20 transfers in a log list: `Transfer(address indexed, address indexed, uint256)`, so three
 * topics and 32 bytes of data. TRC-721 emits the same topic with the token id indexed (four topics,
 * no data), which is no fungible amount and is skipped, as is anything else of another shape.
 */
export function trc20Transfers(logs: readonly TronLog[], book: TronAddressBook): Trc20Transfer[] {
  const out: Trc20Transfer[] = [];
  for (const log of logs) {
    if (log.topics.length !== 3 || log.topics[0] !== TRANSFER_TOPIC || log.data.length !== 64) continue;
    // An indexed address is the 20-byte account id, left-padded to 32 bytes.
    const from = book.fromAccountId(log.topics[1].slice(24));
    const to = book.fromAccountId(log.topics[2].slice(24));
    if (from === null || to === null) continue;
    out.push({ asset: log.address, from, to, value: BigInt(`0x${log.data}`) });
  }
  return out;
}

/**
 * A block's transactions with their execution results. A transaction counts only when it ran to its
 * end: its `ret[0].contractRet` and its receipt's result are SUCCESS (or left out: a transaction
 * that never ran in the VM, such as a TRX transfer) and its info's `result` is not FAILED. One that
 * did not (REVERT, OUT_OF_ENERGY, …) stays in the block, naming its owner and counterpart, but
 * moves nothing: no TRX, and its logs are not read. Throws when the node's infos do not belong to
 * the block's transactions: a node serving a block that changed between the two calls, or one
 * without transaction history, must be asked again, not half-believed.
 */
export function joinBlock(head: TronHeader & { transactions: TronTx[] }, infos: readonly TronTxInfo[], book: TronAddressBook, bytes: number): TronFetched {
  const byId = new Map(infos.map((i) => [i.id, i]));
  const missing = head.transactions.filter((tx) => !byId.has(tx.hash));
  if (missing.length > 0) {
    throw new Error(
      `the node has no execution result (transaction info) for ${missing.length} of the ${head.transactions.length} transactions of block ${head.height}, ` +
        `e.g. ${missing[0].hash} (a java-tron node keeps them with storage.transHistory.switch = "on")`,
    );
  }
  const transactions = head.transactions.map((tx): TronFetchedTx => {
    const info = byId.get(tx.hash) as TronTxInfo;
    const executed = SUCCEEDED.has(tx.contractRet) && SUCCEEDED.has(info.receiptResult) && !info.failed;
    return { hash: tx.hash, from: tx.from, to: tx.to, value: executed ? tx.value : 0n, executed, transfers: executed ? trc20Transfers(info.logs, book) : [] };
  });
  return { height: head.height, hash: head.hash, parentHash: head.parentHash, timestamp: head.timestamp, transactions, bytes };
}

/** A block whose transactions ran without the VM's record of them: the genesis block (the node keeps no infos below height 1). */
export function blockWithoutInfos(head: TronHeader & { transactions: TronTx[] }, bytes: number): TronFetched {
  const transactions = head.transactions.map((tx): TronFetchedTx => {
    const executed = SUCCEEDED.has(tx.contractRet);
    return { hash: tx.hash, from: tx.from, to: tx.to, value: executed ? tx.value : 0n, executed, transfers: [] };
  });
  return { height: head.height, hash: head.hash, parentHash: head.parentHash, timestamp: head.timestamp, transactions, bytes };
}

/** The contracts whose TRC-20 transfers the block's executed transactions hold. */
export function tokenContracts(block: TronFetched): Set<string> {
  const out = new Set<string>();
  for (const tx of block.transactions) for (const t of tx.transfers) out.add(t.asset);
  return out;
}

/** The block as the ingest takes it: TRX in sun as movement 0, each TRC-20 transfer after it with its token's decimals. */
export function ingestedBlockOf(network: string, block: TronFetched, decimalsOf: TokenDecimals["decimalsOf"]): IngestedBlock {
  const transactions = block.transactions.map(
    (tx): IngestedTx => ({
      hash: tx.hash,
      from: tx.from,
      to: tx.to,
      movements: [...nativeMovement(tx.from, tx.to, tx.value), ...transferMovements(tx.transfers.map((t) => ({ ...t, decimals: decimalsOf(t.asset) })))],
    }),
  );
  return { network, height: block.height, hash: block.hash, parentHash: block.parentHash, timestamp: block.timestamp, transactions };
}
