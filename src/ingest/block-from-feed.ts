import type { IngestedBlock, IngestedTx, Movement, TxOutput } from "../chain/block.ts";
import { nativeMovement, outputPayments, type TokenTransfer, transferMovements } from "../chain/movements.ts";
import { btcMoneyLimit, findNetwork, unknownNetwork } from "../config/networks.ts";
import type { Family, NetworkConfig } from "../config/schema.ts";
import { parseRawInteger } from "../lib/amount.ts";
import { type InvalidInput, invalidInput } from "../lib/error-codes.ts";
import { matchAddress } from "../chain/address/normalize.ts";
import { type BlockInput, parseBatch, type TransactionInput, type TransferInput } from "./batch-schema.ts";

// The feed's way in, no I/O: a batch as POST /ingest/blocks and `chainwatch ingest` receive it
// (docs/chains.md shape) is validated and its blocks become the block model, which the pipeline
// takes from here as it takes a follower's (ingest-service.ts).

/** A valid batch: its blocks in matching form, and how a refusal names each as it was sent. */
export type FeedBatch = { ok: true; blocks: IngestedBlock[]; fieldOf: (index: number) => string };

/**
 * Checks a batch as sent (one block or an array) against the schema and the configured networks;
 * a bad block anywhere refuses all of it, with the field named.
 */
export function blocksFromFeed(raw: unknown, networks: Record<string, NetworkConfig>): FeedBatch | InvalidInput {
  const parsed = parseBatch(raw);
  if (!parsed.ok) return invalidInput(parsed.error);
  const fieldOf = Array.isArray(raw) ? (i: number) => `[${i}].` : () => "";
  const unknown = parsed.blocks.find((b) => !findNetwork(networks, b.network));
  if (unknown) return invalidInput(unknownNetwork(unknown.network));
  const mixed = mixedTransaction(parsed.blocks);
  if (mixed) return invalidInput(`${fieldOf(mixed.block)}transactions[${mixed.tx}] has both transfers and outputs: a UTXO transaction carries no token transfers`);
  const misfit = misfitTransfer(parsed.blocks, networks);
  if (misfit) return invalidInput(`${fieldOf(misfit.block)}${misfit.error}`);
  const beyond = moneyBeyondLimit(parsed.blocks, networks);
  if (beyond) return invalidInput(`${fieldOf(beyond.block)}${beyond.error}`);
  const blocks = parsed.blocks.map((b) => toIngestedBlock(b, networks[b.network].family));
  return { ok: true, blocks, fieldOf };
}

/** The first transaction with both token transfers and UTXO outputs: their movements would share indexes. */
function mixedTransaction(blocks: readonly BlockInput[]): { block: number; tx: number } | null {
  for (let b = 0; b < blocks.length; b++) {
    const tx = blocks[b].transactions.findIndex((t) => t.outputs !== undefined && (t.transfers?.length ?? 0) > 0);
    if (tx >= 0) return { block: b, tx };
  }
  return null;
}

/** The first transfer whose token standard, token id, internal flag, asset, decimals and value do not fit together (transferMisfit). */
function misfitTransfer(blocks: readonly BlockInput[], networks: Record<string, NetworkConfig>): { block: number; error: string } | null {
  for (const [b, block] of blocks.entries()) {
    const evm = networks[block.network].family === "evm";
    for (const [t, tx] of block.transactions.entries()) {
      for (const [i, transfer] of (tx.transfers ?? []).entries()) {
        const error = transferMisfit(transfer, evm);
        if (error) return { block: b, error: `transactions[${t}].transfers[${i}].${error}` };
      }
    }
  }
  return null;
}

/**
 * What is wrong with one transfer's fields together, as the rest of a sentence that starts with
 * the field; null when nothing is. Token standards are evm's (elsewhere a token is the family's
 * own kind); an NFT transfer names its contract and token id and counts whole tokens (an ERC-721
 * one exactly one); an internal transfer moves the native coin.
 */
function transferMisfit(x: TransferInput, evm: boolean): string | null {
  const asset = x.asset ?? null;
  if (x.internal === true && asset !== null) return "internal moves the native coin: asset must be null or absent";
  const standard = x.token_standard;
  if (standard !== undefined && !evm) return "token_standard is for evm networks only";
  if (standard !== undefined && asset === null) return `token_standard ${standard} needs asset, the token's contract`;
  const nft = standard === "erc721" || standard === "erc1155";
  if (!nft) return x.token_id === undefined ? null : "token_id is only for token_standard erc721 or erc1155";
  if (x.token_id === undefined) return `token_id is required for an ${standard} transfer`;
  if (x.decimals !== undefined && x.decimals !== null && x.decimals !== 0) return `decimals must be 0 or absent for an ${standard} transfer: it counts whole tokens`;
  if (standard === "erc721" && x.value !== "1") return 'value must be "1" for an erc721 transfer: it moves one token';
  return null;
}

/**
 * The first value of a btc-family block above its network's `max_money` (config/networks.ts): a
 * transaction's value, one output, or its outputs together. No valid block of the coin holds one,
 * so the feed is wrong, as a node saying so would be (follow/btc/shape.ts refuses it from a follower's node).
 */
function moneyBeyondLimit(blocks: readonly BlockInput[], networks: Record<string, NetworkConfig>): { block: number; error: string } | null {
  for (const [b, block] of blocks.entries()) {
    const net = networks[block.network];
    if (net.family !== "btc") continue;
    const limit = btcMoneyLimit(block.network, net);
    for (const [t, tx] of block.transactions.entries()) {
      const at = `transactions[${t}]`;
      const over = (field: string, what: string) => ({ block: b, error: `${at}${field} is more than ${limit.name}${what}` });
      if ((parseRawInteger(tx.value) ?? 0n) > limit.max) return over(".value", "");
      let total = 0n;
      for (const [o, output] of (tx.outputs ?? []).entries()) {
        const value = parseRawInteger(output.value) ?? 0n;
        if (value > limit.max) return over(`.outputs[${o}].value`, "");
        total += value;
        if (total > limit.max) return over(".outputs", ` together (by outputs[${o}])`);
      }
    }
  }
  return null;
}

/**
 * The movements of a transaction: index 0 is the native value, i+1 is transfers[i], and on a UTXO
 * transaction (which has no transfers) n+1 is what its outputs from vout n on pay one address
 * (chain/movements.ts). The schema has already checked every value is an integer string.
 */
export function movementsOf(tx: TransactionInput, family: Family, outputs: readonly TxOutput[] = outputsOf(tx, family)): Movement[] {
  const transfers = (tx.transfers ?? []).map((t) => {
    const out: TokenTransfer = {
      asset: matchAddress(family, t.asset),
      from: matchAddress(family, t.from),
      to: matchAddress(family, t.to),
      value: parseRawInteger(t.value) ?? 0n,
      decimals: t.decimals ?? null,
    };
    // misfitTransfer has checked that an NFT names its token id and counts whole tokens.
    if ((t.token_standard === "erc721" || t.token_standard === "erc1155") && t.token_id !== undefined) {
      out.nft = { standard: t.token_standard, tokenId: BigInt(t.token_id) };
      out.decimals = 0;
    }
    if (t.internal === true) out.internal = true;
    return out;
  });
  return [
    ...nativeMovement(matchAddress(family, tx.from), matchAddress(family, tx.to), parseRawInteger(tx.value) ?? 0n),
    ...outputPayments(outputs),
    ...transferMovements(transfers),
  ];
}

/** A UTXO transaction's outputs in matching form; the position in the feed's list is the index. */
function outputsOf(tx: TransactionInput, family: Family): TxOutput[] {
  return (tx.outputs ?? []).map((o, vout) => ({ vout, address: matchAddress(family, o.address), value: parseRawInteger(o.value) ?? 0n }));
}

/** Families whose block and transaction hashes are hex, where case carries no meaning. */
const HEX_HASH_FAMILIES: ReadonlySet<Family> = new Set(["evm", "tron", "btc"]);
const HEX_HASH = /^(0[xX])?[0-9a-fA-F]+$/;

/**
 * A hash in its one stored spelling: on the hex families lower-case (`0xAB…` and `0xab…` are one
 * block to a node, so they are one block here: the follower, which reads lower-case from its node,
 * then finds the block a feed sent in capitals), elsewhere as sent (base58 and free text keep their case).
 */
export function matchHash(family: Family, hash: string): string {
  return HEX_HASH_FAMILIES.has(family) && HEX_HASH.test(hash) ? hash.toLowerCase() : hash;
}

/**
 * A validated block in matching form: addresses and hashes in their one stored spelling
 * (matchAddress, matchHash), values as bigint. POST /ingest/blocks and `chainwatch ingest` go
 * through here; a follower builds the same form from its node's checked answers (follow/<family>/block.ts),
 * so nothing after either sees another spelling.
 */
export function toIngestedBlock(b: BlockInput, family: Family): IngestedBlock {
  const parentHash = b.parent_hash ?? null;
  return {
    network: b.network,
    height: b.height,
    hash: matchHash(family, b.hash),
    parentHash: parentHash === null ? null : matchHash(family, parentHash),
    timestamp: b.timestamp ?? null,
    transactions: b.transactions.map((tx) => {
      const outputs = outputsOf(tx, family);
      const out: IngestedTx = {
        hash: matchHash(family, tx.hash),
        from: matchAddress(family, tx.from),
        to: matchAddress(family, tx.to),
        movements: movementsOf(tx, family, outputs),
      };
      if (tx.outputs) out.outputs = outputs;
      if (tx.inputs && tx.inputs.length > 0) out.spends = tx.inputs.map((i) => ({ txid: matchHash(family, i.txid), vout: i.vout }));
      return out;
    }),
  };
}
