import { formatAmount } from "../../lib/amount.ts";
import { answerChecker, preview } from "../core/upstream-data.ts";
import type { AmountSites } from "./client.ts";

// Pure: checks that what a Bitcoin Core node (or a fork keeping its JSON-RPC) answered has the
// shapes its RPC prints, and keeps only what the follower uses. Nothing of an answer is compared,
// converted or stored before it passed here (core/upstream-data.ts says why). Amounts arrive as the
// decimal text the node printed (client.ts parseExactValues), never as floats.

const HASH = /^[0-9a-fA-F]{64}$/;
const HEX = /^(?:[0-9a-fA-F]{2})*$/;
// ValueFromAmount prints 8 decimals; fewer are accepted (other forks), more never: they are no amount.
// 20 integer digits hold any coin's supply in whole coins (Dogecoin's grows by 5 billion a year).
const AMOUNT = /^(0|[1-9][0-9]{0,19})(?:\.([0-9]{1,8}))?$/;
// Base58 and bech32 addresses are alphanumeric; a cashaddr one has its `prefix:`.
const ADDRESS = /^(?:[a-z][a-z0-9-]{0,31}:)?[A-Za-z0-9]{1,128}$/;
// `chain` of getblockchaininfo: main, test, regtest, signet (and a fork's own names).
const CHAIN = /^[A-Za-z0-9_-]{1,32}$/;
const MAX_VOUT = 0xffff_ffff;
const SATOSHI_DECIMALS = 8;

/** An outpoint a transaction spends. */
export type BtcOutpoint = { txid: string; vout: number };

/** An output, `vout` its index (`n`); `address` null when its script pays no single address (OP_RETURN, bare multisig, nonstandard). */
export type BtcOutput = { vout: number; address: string | null; value: bigint };

/** A transaction: the outpoints it spends (none for a coinbase), its outputs in `n` order. */
export type BtcTx = { txid: string; inputs: BtcOutpoint[]; outputs: BtcOutput[] };

/**
 * The most one output, and one transaction's outputs together, may carry, in satoshi, and its name
 * for a refusal (config/networks.ts btcMoneyLimit): the coin's MAX_MONEY, which every valid block
 * keeps (Bitcoin Core's `bad-txns-vout-toolarge`, `bad-txns-txouttotal-toolarge`).
 */
export type MoneyLimit = { max: bigint; name: string };

/** A block of `getblock <hash> 2`: `previousblockhash` null only for the genesis block; `time` in Unix seconds. */
export type BtcBlock = { height: number; hash: string; previousblockhash: string | null; time: number; transactions: BtcTx[] };

type Rec = Record<string, unknown>;

/** Checks values of one node answer (`what`: "a malformed block 5"); every failure names the answer and the field. */
function checker(what: string) {
  const base = answerChecker(what);
  const { fail } = base;
  return {
    ...base,
    hash(field: string, value: unknown): string {
      return isHash(value) ? value.toLowerCase() : fail(field, "a hash (64 hex digits)", value);
    },
    /** A non-negative integer at most `max` (heights, times, output indexes). */
    count(field: string, value: unknown, max = Number.MAX_SAFE_INTEGER): number {
      return isCount(value, max) ? value : fail(field, "a non-negative integer", value);
    },
    /** A decimal amount as the node printed it (a string: a number here got through a float) in satoshi. */
    amount(field: string, value: unknown): bigint {
      return amountOf(value) ?? fail(field, "an amount of at most 8 decimals", value);
    },
    address(field: string, value: unknown): string {
      return isAddress(value) ? value : fail(field, "an address", value);
    },
  };
}

type Checker = ReturnType<typeof checker>;

// What each check accepts, also asked directly where a block's entries are checked: an entry that
// passes needs no field name, and a block has hundreds of entries (entryField builds one to refuse).
const isHash = (value: unknown): value is string => typeof value === "string" && HASH.test(value);
const isAddress = (value: unknown): value is string => typeof value === "string" && ADDRESS.test(value);
/** A non-negative integer at most `max`. */
const isCount = (value: unknown, max: number): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 0 && value <= max;
const isRecord = (value: unknown): value is Rec => typeof value === "object" && value !== null && !Array.isArray(value);
/** An amount's text in satoshi; null for anything else (a number here got through a float). */
const amountOf = (value: unknown): bigint | null => (typeof value === "string" ? satoshisOf(value) : null);

/** Converts a node's decimal amount text ("0.00100000") to satoshi; null when it is no amount of at most 8 decimals. */
export function satoshisOf(text: string): bigint | null {
  const match = AMOUNT.exec(text);
  return match === null ? null : BigInt(match[1] + (match[2] ?? "").padEnd(SATOSHI_DECIMALS, "0"));
}

/** getblockcount's answer: the node's newest height. */
export function checkBlockCount(value: unknown): number {
  return checker("a malformed head (getblockcount)").count("result", value);
}

/** getblockhash's answer at `height`, lower-case. */
export function checkBlockHash(height: number, value: unknown): string {
  return checker(`a malformed hash of block ${height} (getblockhash)`).hash("result", value);
}

/** getblockchaininfo's `chain`: main, test, regtest, signet. */
export function checkChainInfo(value: unknown): { chain: string } {
  const c = checker("malformed chain info (getblockchaininfo)");
  const chain = c.object("result", value).chain;
  if (typeof chain !== "string" || !CHAIN.test(chain)) c.fail("chain", "a chain name", chain);
  return { chain: chain as string };
}

/**
 * The address output `i` of a transaction pays: `scriptPubKey.address` (Bitcoin Core 22 and later),
 * else `scriptPubKey.addresses` (Litecoin Core 0.21, Dogecoin and older Bitcoin Core) when it names
 * exactly one; null for a script that pays none or several (OP_RETURN, bare multisig).
 */
function payee(c: Checker, at: string, i: number, script: Rec): string | null {
  const address = script.address;
  if (address !== undefined) return isAddress(address) ? address : c.address(entryField(at, "vout", i, "scriptPubKey.address"), address);
  if (script.addresses === undefined) return null;
  const addresses = Array.isArray(script.addresses) ? script.addresses : c.array(entryField(at, "vout", i, "scriptPubKey.addresses"), script.addresses);
  if (addresses.length !== 1) return null;
  const only = addresses[0];
  return isAddress(only) ? only : c.address(entryField(at, "vout", i, "scriptPubKey.addresses[0]"), only);
}

/**
 * One transaction of a verbosity-2 block. A vin entry is a coinbase (`coinbase`: hex) or spends
 * `txid`:`vout`; a vout entry has `value`, `n` and `scriptPubKey`. Litecoin marks every entry with
 * `ismweb`; MWEB inputs and outputs (never in a block's `tx` list so far: the extension block's
 * transactions are summed into the HogEx one) spend and pay no outpoint of this chain and are left
 * out. Outputs must come in `n` order (0, 1, …): the ingest reads an output's index as its `n`.
 * `at` prefixes field names (`tx[3]`); "" for a transaction that is the whole answer. No output,
 * and not all of them together, may carry more than `limit`.
 */
function transaction(c: Checker, at: string, value: unknown, limit: MoneyLimit): BtcTx {
  const tx = c.object(at || "result", value);
  const field = (name: string) => (at ? `${at}.${name}` : name);
  const txid = c.hash(field("txid"), tx.txid);
  const inputs: BtcOutpoint[] = [];
  const vins = Array.isArray(tx.vin) ? tx.vin : c.array(field("vin"), tx.vin);
  for (let i = 0; i < vins.length; i++) {
    const item = vins[i];
    const vin = isRecord(item) ? item : c.object(entryField(at, "vin", i), item);
    if (vin.ismweb === true) continue;
    if (vin.coinbase !== undefined) {
      if (typeof vin.coinbase !== "string" || !HEX.test(vin.coinbase)) c.fail(entryField(at, "vin", i, "coinbase"), "hex data", vin.coinbase);
      continue;
    }
    const spent = vin.txid;
    const index = vin.vout;
    inputs.push({
      txid: isHash(spent) ? spent.toLowerCase() : c.hash(entryField(at, "vin", i, "txid"), spent),
      vout: isCount(index, MAX_VOUT) ? index : c.count(entryField(at, "vin", i, "vout"), index, MAX_VOUT),
    });
  }
  const outputs: BtcOutput[] = [];
  let total = 0n;
  const vouts = Array.isArray(tx.vout) ? tx.vout : c.array(field("vout"), tx.vout);
  for (let i = 0; i < vouts.length; i++) {
    const item = vouts[i];
    const vout = isRecord(item) ? item : c.object(entryField(at, "vout", i), item);
    if (vout.ismweb === true) continue;
    const amount = amountOf(vout.value) ?? c.amount(entryField(at, "vout", i, "value"), vout.value);
    if (amount > limit.max) c.fail(entryField(at, "vout", i, "value"), `an amount of at most ${limit.name}`, vout.value);
    total += amount;
    if (total > limit.max) c.fail(field("vout"), `outputs of at most ${limit.name} together`, `${formatAmount(total, SATOSHI_DECIMALS)} by vout[${i}]`);
    const n = isCount(vout.n, MAX_VOUT) ? vout.n : c.count(entryField(at, "vout", i, "n"), vout.n, MAX_VOUT);
    if (n !== outputs.length) c.fail(entryField(at, "vout", i, "n"), `output index ${outputs.length}`, n);
    const script = isRecord(vout.scriptPubKey) ? vout.scriptPubKey : c.object(entryField(at, "vout", i, "scriptPubKey"), vout.scriptPubKey);
    outputs.push({ vout: n, address: payee(c, at, i, script), value: amount });
  }
  return { txid, inputs, outputs };
}

/** The name of a field of a transaction's entry (`tx[3].vout[1].value`), built only to refuse it: a block has hundreds of entries. */
function entryField(at: string, list: "vin" | "vout", i: number, name?: string): string {
  const entry = `${list}[${i}]${name === undefined ? "" : `.${name}`}`;
  return at ? `${at}.${entry}` : entry;
}

/**
 * A block as `getblock <hash> 2` answers it: its `hash` (the one asked for), `height` (the height
 * asked for), `previousblockhash` (left out by the genesis block alone), `time` and `tx`, each
 * transaction with its inputs and outputs. Hashes come back lower-case.
 */
export function checkBlock(height: number, hash: string, value: unknown, limit: MoneyLimit): BtcBlock {
  const c = checker(`a malformed block ${height}`);
  const block = c.object("block", value);
  if (c.hash("hash", block.hash) !== hash.toLowerCase()) c.fail("hash", `the hash asked for (${hash})`, block.hash);
  if (c.count("height", block.height) !== height) c.fail("height", `height ${height}`, block.height);
  const previousblockhash = height === 0 && block.previousblockhash === undefined ? null : c.hash("previousblockhash", block.previousblockhash);
  const time = c.count("time", block.time);
  const transactions = c.array("tx", block.tx).map((tx, i) => transaction(c, `tx[${i}]`, tx, limit));
  return { height, hash: hash.toLowerCase(), previousblockhash, time, transactions };
}

/** Where a transaction of `getrawtransaction <txid> true` (or of a block) keeps its amounts: its outputs (`vout`). */
export const transactionAmounts: AmountSites = (tx, visit) => {
  const vouts = isRecord(tx) ? tx.vout : undefined;
  if (Array.isArray(vouts)) for (const vout of vouts) visit(vout);
};

/** Where a block of `getblock <hash> 2` keeps its amounts: each transaction's outputs, in turn. */
export const blockAmounts: AmountSites = (block, visit) => {
  const txs = isRecord(block) ? block.tx : undefined;
  if (Array.isArray(txs)) for (const tx of txs) transactionAmounts(tx, visit);
};

/** getrawmempool's answer (verbose false): the txids the node holds, lower-case. */
export function checkTxids(value: unknown): string[] {
  const c = checker("a malformed mempool (getrawmempool)");
  return c.array("result", value).map((txid, i) => c.hash(`result[${i}]`, txid));
}

/** `getrawtransaction <txid> true`'s answer: the transaction asked for, read like one of a block's. */
export function checkMempoolTx(txid: string, value: unknown, limit: MoneyLimit): BtcTx {
  const c = checker(`a malformed transaction ${preview(txid, 80)} (getrawtransaction)`);
  const tx = transaction(c, "", value, limit);
  if (tx.txid !== txid.toLowerCase()) c.fail("txid", `the txid asked for (${txid})`, tx.txid);
  return tx;
}
