import { answerChecker } from "../core/upstream-data.ts";

// Pure: checks that what an EVM node answered has the shapes JSON-RPC promises, before anything of
// it is compared, converted or stored (core/upstream-data.ts says why).

const HASH = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
// A hex quantity of at most 256 bits; leading zeros are tolerated (some nodes send them).
const QUANTITY = /^0x[0-9a-fA-F]{1,64}$/;
const DATA = /^0x(?:[0-9a-fA-F]{2})*$/;

/** Checks values of one node answer (`what`: "a malformed block 5"); every failure names the answer and the field. */
function checker(what: string) {
  const base = answerChecker(what);
  const { fail } = base;
  const match = (re: RegExp, expected: string) => (field: string, value: unknown) => {
    if (typeof value !== "string" || !re.test(value)) fail(field, expected, value);
  };
  return {
    ...base,
    hash: match(HASH, "a hash (0x + 64 hex digits)"),
    address: match(ADDRESS, "an address (0x + 40 hex digits)"),
    quantity: match(QUANTITY, "a hex quantity"),
    data: match(DATA, "hex data"),
    /** A quantity that must fit a JS number (heights, timestamps). */
    safeInteger(field: string, value: unknown): number {
      if (typeof value !== "string" || !QUANTITY.test(value) || BigInt(value) > BigInt(Number.MAX_SAFE_INTEGER)) fail(field, "a hex quantity", value);
      return Number(BigInt(value as string));
    },
  };
}

/** eth_blockNumber's answer as a height. */
export function checkHeadNumber(value: unknown): number {
  return checker("a malformed head (eth_blockNumber)").safeInteger("result", value);
}

// Field by field, valid values pass on a test alone; the field's name (`transactions[7].hash`) is
// built, and the checker called, only for a value that fails: a block of 100 transactions and
// their receipts has over a thousand fields, and naming each cost more than testing it.
const isHash = (v: unknown) => typeof v === "string" && HASH.test(v);
const isAddress = (v: unknown) => typeof v === "string" && ADDRESS.test(v);
const isQuantity = (v: unknown) => typeof v === "string" && QUANTITY.test(v);
const isData = (v: unknown) => typeof v === "string" && DATA.test(v);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A block as eth_getBlockByNumber(height, full) answers it: its own hash, parent hash, number (the
 * height asked for) and timestamp; with `full`, each transaction's hash, from, to and value.
 */
export function checkBlock(height: number, value: unknown, full: boolean): void {
  const c = checker(`a malformed block ${height}`);
  const block = c.object("block", value);
  c.hash("hash", block.hash);
  c.hash("parentHash", block.parentHash);
  if (c.safeInteger("number", block.number) !== height) c.fail("number", `height ${height}`, block.number);
  c.safeInteger("timestamp", block.timestamp);
  if (!full) return;
  const transactions = c.array("transactions", block.transactions);
  for (let i = 0; i < transactions.length; i++) {
    const tx = isObject(transactions[i]) ? (transactions[i] as Record<string, unknown>) : c.object(`transactions[${i}]`, transactions[i]);
    if (!isHash(tx.hash)) c.hash(`transactions[${i}].hash`, tx.hash);
    if (!isAddress(tx.from)) c.address(`transactions[${i}].from`, tx.from);
    // A contract creation has no recipient.
    if (tx.to !== null && tx.to !== undefined && !isAddress(tx.to)) c.address(`transactions[${i}].to`, tx.to);
    if (!isQuantity(tx.value)) c.quantity(`transactions[${i}].value`, tx.value);
  }
}

/** Receipts of a block: transaction and block hashes, status (absent before Byzantium) and every log's address, topics and data. */
export function checkReceipts(height: number, value: unknown): void {
  const c = checker(`malformed receipts of block ${height}`);
  const receipts = c.array("receipts", value);
  for (let i = 0; i < receipts.length; i++) {
    const r = isObject(receipts[i]) ? (receipts[i] as Record<string, unknown>) : c.object(`receipts[${i}]`, receipts[i]);
    if (!isHash(r.transactionHash)) c.hash(`receipts[${i}].transactionHash`, r.transactionHash);
    if (!isHash(r.blockHash)) c.hash(`receipts[${i}].blockHash`, r.blockHash);
    if (r.status !== null && r.status !== undefined && !isQuantity(r.status)) c.quantity(`receipts[${i}].status`, r.status);
    const logs = Array.isArray(r.logs) ? r.logs : c.array(`receipts[${i}].logs`, r.logs);
    for (let j = 0; j < logs.length; j++) {
      const log = isObject(logs[j]) ? (logs[j] as Record<string, unknown>) : c.object(`receipts[${i}].logs[${j}]`, logs[j]);
      if (!isAddress(log.address)) c.address(`receipts[${i}].logs[${j}].address`, log.address);
      const topics = Array.isArray(log.topics) ? log.topics : c.array(`receipts[${i}].logs[${j}].topics`, log.topics);
      for (let k = 0; k < topics.length; k++) if (!isHash(topics[k])) c.hash(`receipts[${i}].logs[${j}].topics[${k}]`, topics[k]);
      if (!isData(log.data)) c.data(`receipts[${i}].logs[${j}].data`, log.data);
    }
  }
}

/** eth_chainId's answer as a number; null when it is no quantity a JS number holds. */
export function chainIdOf(value: unknown): number | null {
  if (typeof value !== "string" || !QUANTITY.test(value)) return null;
  const id = BigInt(value);
  return id <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(id) : null;
}
