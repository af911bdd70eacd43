import type { TronAddressBook } from "./address-book.ts";
import { answerChecker } from "../core/upstream-data.ts";

// Pure: checks that what a java-tron node answered (HTTP API, `visible: true`) has the shapes its
// servlets print (Util.printBlock, JsonFormat, HttpSelfFormatFieldName), and keeps only what the
// follower uses. Nothing of an answer is compared, converted or stored before it passed here
// (core/upstream-data.ts says why). Protobuf-3 fields at their default (0, empty) are left out of the
// JSON, so a missing number is 0 and a missing enum is its default.

const HASH = /^[0-9a-fA-F]{64}$/;
const DATA = /^(?:[0-9a-fA-F]{2})*$/;
// contractRet, receipt.result and result are protobuf enum names.
const ENUM = /^[A-Z][A-Z_]{0,63}$/;
const CONTRACT_TYPE = /^[A-Za-z][A-Za-z0-9]{0,63}$/;
const DIGITS = /^(0|[1-9][0-9]{0,77})$/;

/** A block's header: what the follower orders and links blocks by. `timestamp` in Unix seconds. */
export type TronHeader = { height: number; hash: string; parentHash: string; timestamp: number };

/**
 * A transaction of a block: its contract's type, its owner (`from`), its counterpart (`to`:
 * `to_address`, else `contract_address`), the sun it moves (TransferContract `amount`,
 * TriggerSmartContract `call_value`) and the block's `ret[0].contractRet` (null when absent).
 */
export type TronTx = { hash: string; type: string; from: string | null; to: string | null; value: bigint; contractRet: string | null };

/** A log of a transaction's execution; topics and data as lower-case hex without 0x. */
export type TronLog = { address: string; topics: string[]; data: string };

/** A transaction's execution result (TransactionInfo): `result` FAILED, the receipt's result, its logs. */
export type TronTxInfo = { id: string; failed: boolean; receiptResult: string | null; logs: TronLog[] };

/**
 * A number in the answer that JSON.parse cannot hold exactly (an amount above 2^53 sun): the
 * caller parses the answer's text again with parseExact, which keeps such numbers' digits. Thrown
 * from deep inside a check to the source one call up, which starts the check again: a restart,
 * not a failure.
 */
export class InexactNumber extends Error {}

/** An integer JSON.parse rounds: what makes a check ask for parseExact, and what parseExact keeps as written. */
const isInexactInteger = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value);

// JSON.rawJSON and JSON.isRawJSON (JSON.parse source text access), which TypeScript's lib does not declare yet.
type RawJson = { readonly rawJSON: string };
const Json = JSON as unknown as { rawJSON(text: string): RawJson; isRawJSON(value: unknown): value is RawJson };

/**
 * Parses a node's answer keeping every integer beyond 2^53 as the number text the node printed (a
 * raw JSON value, which previews as the number it was). Strings stay strings: a value the node
 * sent quoted is never mistaken for a number it printed.
 */
export function parseExact(text: string): unknown {
  // The reviver's third argument (the source text of a primitive) is JSON.parse source text access.
  const keep = (_key: string, value: unknown, context?: { source?: string }) => (isInexactInteger(value) && context?.source ? Json.rawJSON(context.source) : value);
  return JSON.parse(text, keep as (key: string, value: unknown) => unknown);
}

/** The most an int64 holds: java-tron's amounts (sun) are int64 fields. */
const INT64_MAX = 2n ** 63n - 1n;

/** Whether an answer is `{}`: what java-tron prints for a block or info it does not have. */
export function isEmptyAnswer(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

type Rec = Record<string, unknown>;

/**
 * Checks values of one node answer (`what`: "a malformed block 5"); every failure names the answer
 * and the field. Inside a list's item (`within`), fields are named from the item on (`.txID`) and
 * the item's own name (`transactions[7]`) is built only for a failure: a block of 200
 * transactions has thousands of fields, and naming each one cost more than checking it.
 */
function checker(what: string, book: TronAddressBook) {
  const base = answerChecker(what);
  let item: (() => string) | null = null;
  const fail = (field: string, expected: string, value: unknown): never => base.fail(item ? `${item()}${field}` : field, expected, value);
  return {
    fail,
    /** Names the following fields from the list item `name` names (null: from the answer again). */
    within(name: (() => string) | null): void {
      item = name;
    },
    object(field: string, value: unknown): Rec {
      if (typeof value !== "object" || value === null || Array.isArray(value)) fail(field, "an object", value);
      return value as Rec;
    },
    /** An array; absent is empty (protobuf leaves empty lists out). */
    list(field: string, value: unknown): unknown[] {
      if (value === undefined) return [];
      if (!Array.isArray(value)) fail(field, "an array", value);
      return value as unknown[];
    },
    hash(field: string, value: unknown): string {
      if (typeof value !== "string" || !HASH.test(value)) fail(field, "a hash (64 hex digits)", value);
      return (value as string).toLowerCase();
    },
    /** Hex data, lower case; absent is empty. */
    data(field: string, value: unknown): string {
      if (value === undefined) return "";
      if (typeof value !== "string" || !DATA.test(value)) fail(field, "hex data", value);
      return (value as string).toLowerCase();
    },
    address(field: string, value: unknown): string {
      const address = book.fromNode(value);
      if (address === null) fail(field, "a tron address (base58check T…, or 41 + 40 hex digits)", value);
      return address as string;
    },
    /** A log's contract: `T…` with `visible: true`, the 20-byte account id (40 hex digits) without. */
    logAddress(field: string, value: unknown): string {
      const address = book.fromAccountId(value) ?? book.fromNode(value);
      if (address === null) fail(field, "a tron address (base58check T…, or 40 hex digits)", value);
      return address as string;
    },
    /**
     * An amount in sun: a JSON number, as java-tron prints its int64 fields (JsonFormat prints them
     * bare, never quoted), from 0 to 2^63 - 1; absent is 0. A quoted one is no answer of java-tron
     * and is refused, as is one past int64. Beyond 2^53 it must come from parseExact.
     */
    amount(field: string, value: unknown): bigint {
      const expected = "a JSON number of sun from 0 to 2^63 - 1";
      if (value === undefined) return 0n;
      if (Number.isSafeInteger(value) && (value as number) >= 0) return BigInt(value as number);
      if (isInexactInteger(value)) throw new InexactNumber(field);
      if (!Json.isRawJSON(value) || !DIGITS.test(value.rawJSON)) return fail(field, expected, value);
      const sun = BigInt(value.rawJSON);
      return sun <= INT64_MAX ? sun : fail(field, expected, value);
    },
    /** A non-negative integer a JS number holds (heights, timestamps); `absent` when the field is left out. */
    count(field: string, value: unknown, absent?: number): number {
      if (value === undefined && absent !== undefined) return absent;
      if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) fail(field, "a non-negative integer", value);
      return value as number;
    },
    /** A protobuf enum name; null when absent (the enum's default). */
    enumName(field: string, value: unknown): string | null {
      if (value === undefined) return null;
      if (typeof value !== "string" || !ENUM.test(value)) fail(field, "a result name", value);
      return value as string;
    },
  };
}

type Checker = ReturnType<typeof checker>;

/**
 * A block's header as `/wallet/getblock` and `/wallet/getblockbynum` print it: `blockID`, and
 * `block_header.raw_data` with `number` (the height asked for, when one was), `parentHash` and
 * `timestamp` (ms). The genesis block leaves its zero number, parent and timestamp out.
 */
function header(c: Checker, height: number | null, value: unknown): TronHeader {
  const block = c.object("block", value);
  const hash = c.hash("blockID", block.blockID);
  const raw = c.object("block_header.raw_data", c.object("block_header", block.block_header).raw_data);
  const number = c.count("block_header.raw_data.number", raw.number, 0);
  if (height !== null && number !== height) c.fail("block_header.raw_data.number", `height ${height}`, raw.number);
  const genesis = number === 0;
  const parentHash = genesis && raw.parentHash === undefined ? "0".repeat(64) : c.hash("block_header.raw_data.parentHash", raw.parentHash);
  const timestampMs = c.count("block_header.raw_data.timestamp", raw.timestamp, genesis ? 0 : undefined);
  return { height: number, hash, parentHash, timestamp: Math.floor(timestampMs / 1000) };
}

/** The header of an answer of `/wallet/getblock` (`detail: false`); `height` null for the head. */
export function checkHeader(height: number | null, value: unknown, book: TronAddressBook): TronHeader {
  return header(checker(height === null ? "a malformed head block" : `a malformed block ${height}`, book), height, value);
}

/**
 * A block as `/wallet/getblockbynum` (`visible: true`) prints it: the header, and per transaction
 * its `txID`, `ret[0].contractRet` and the first contract of `raw_data.contract` (java-tron allows
 * one per transaction): `type` and `parameter.value`'s owner, counterpart and amount. Address
 * fields are checked only where they are read; a contract whose parameters the node could not
 * print (`value` null, a type it does not know) moves nothing and names no one.
 */
export function checkBlock(height: number, value: unknown, book: TronAddressBook): TronHeader & { transactions: TronTx[] } {
  const c = checker(`a malformed block ${height}`, book);
  const head = header(c, height, value);
  const transactions = c.list("transactions", (value as Rec).transactions).map((item, i): TronTx => {
    c.within(() => `transactions[${i}]`);
    const tx = c.object("", item);
    const hash = c.hash(".txID", tx.txID);
    const ret = c.list(".ret", tx.ret);
    const contractRet = ret.length === 0 ? null : c.enumName(".ret[0].contractRet", c.object(".ret[0]", ret[0]).contractRet);
    const contracts = c.list(".raw_data.contract", c.object(".raw_data", tx.raw_data).contract);
    if (contracts.length === 0) c.fail(".raw_data.contract", "a list of one contract", contracts);
    const contract = c.object(".raw_data.contract[0]", contracts[0]);
    if (typeof contract.type !== "string" || !CONTRACT_TYPE.test(contract.type)) c.fail(".raw_data.contract[0].type", "a contract type", contract.type);
    const type = contract.type as string;
    const parameter = c.object(".raw_data.contract[0].parameter", contract.parameter);
    if (parameter.value === null || parameter.value === undefined) return { hash, type, from: null, to: null, value: 0n, contractRet };
    const v = c.object(VALUE, parameter.value);
    const optionalAddress = (name: keyof typeof VALUE_FIELD) => (v[name] === undefined ? null : c.address(VALUE_FIELD[name], v[name]));
    const from = type === "TransferContract" || type === "TriggerSmartContract" ? c.address(VALUE_FIELD.owner_address, v.owner_address) : optionalAddress("owner_address");
    let to: string | null;
    let moved = 0n;
    if (type === "TransferContract") {
      to = c.address(VALUE_FIELD.to_address, v.to_address);
      moved = c.amount(VALUE_FIELD.amount, v.amount);
    } else if (type === "TriggerSmartContract") {
      to = c.address(VALUE_FIELD.contract_address, v.contract_address);
      moved = c.amount(VALUE_FIELD.call_value, v.call_value);
    } else {
      to = optionalAddress("to_address") ?? optionalAddress("contract_address");
    }
    return { hash, type, from, to, value: moved, contractRet };
  });
  c.within(null);
  return { ...head, transactions };
}

// A transaction's contract parameters, as fields of the transaction.
const VALUE = ".raw_data.contract[0].parameter.value";
const VALUE_FIELD = {
  owner_address: `${VALUE}.owner_address`,
  to_address: `${VALUE}.to_address`,
  contract_address: `${VALUE}.contract_address`,
  amount: `${VALUE}.amount`,
  call_value: `${VALUE}.call_value`,
};

/**
 * The answer of `/wallet/gettransactioninfobyblocknum` (`visible: true`): per transaction its `id`,
 * `blockNumber` (the height asked for), `result` (FAILED, or left out for success), the receipt's
 * `result` (the contract's outcome: SUCCESS, REVERT, OUT_OF_ENERGY…; left out for transactions
 * that never ran in the VM) and its logs' contract, topics and data.
 */
export function checkInfos(height: number, value: unknown, book: TronAddressBook): TronTxInfo[] {
  const c = checker(`malformed transaction info of block ${height}`, book);
  if (!Array.isArray(value)) c.fail("the answer", "an array", value);
  const infos = (value as unknown[]).map((item, i): TronTxInfo => {
    c.within(() => `[${i}]`);
    const info = c.object("", item);
    const id = c.hash(".id", info.id);
    if (c.count(".blockNumber", info.blockNumber) !== height) c.fail(".blockNumber", `height ${height}`, info.blockNumber);
    const failed = c.enumName(".result", info.result) === "FAILED";
    const receiptResult = info.receipt === undefined ? null : c.enumName(".receipt.result", c.object(".receipt", info.receipt).result);
    const logs = c.list(".log", info.log).map((entry, j): TronLog => {
      c.within(() => `[${i}].log[${j}]`);
      const log = c.object("", entry);
      const address = c.logAddress(".address", log.address);
      const topics = c.list(".topics", log.topics).map((t, k) => (typeof t === "string" && HASH.test(t) ? t.toLowerCase() : c.hash(`.topics[${k}]`, t)));
      return { address, topics, data: c.data(".data", log.data) };
    });
    return { id, failed, receiptResult, logs };
  });
  c.within(null);
  return infos;
}
