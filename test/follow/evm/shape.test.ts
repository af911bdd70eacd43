import { describe, expect, test } from "bun:test";
import { chainIdOf, checkBlock, checkHeadNumber, checkReceipts } from "../../../src/follow/evm/shape.ts";
import { MalformedUpstreamData } from "../../../src/follow/core/upstream-data.ts";

// What the follower accepts from a node, field by field (docs/chains.md).

const H = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
const A = `0x${"ab".repeat(20)}`;

const tx = (over: Record<string, unknown> = {}) => ({ hash: H(9), from: A, to: A, value: "0x0", ...over });
const block = (over: Record<string, unknown> = {}) => ({ number: "0x5", hash: H(5), parentHash: H(4), timestamp: "0x6560f2b0", transactions: [tx()], ...over });
const receipt = (over: Record<string, unknown> = {}) => ({
  transactionHash: H(9),
  blockHash: H(5),
  status: "0x1",
  logs: [{ address: A, topics: [H(1), H(2)], data: "0x00ff" }],
  ...over,
});

/** The message of the MalformedUpstreamData `run` throws, or null when it passes. */
function refusal(run: () => unknown): string | null {
  try {
    run();
    return null;
  } catch (e) {
    if (!(e instanceof MalformedUpstreamData)) throw e;
    return e.message;
  }
}

describe("blocks", () => {
  test("a well-formed block passes, with or without a recipient, before Byzantium or after", () => {
    expect(refusal(() => checkBlock(5, block(), true))).toBeNull();
    expect(refusal(() => checkBlock(5, block({ transactions: [tx({ to: null }), tx({ to: undefined })] }), true))).toBeNull();
    expect(refusal(() => checkBlock(5, block({ transactions: [H(9)] }), false))).toBeNull();
  });

  const M = "the node sent a malformed block 5: ";
  test.each([
    ["no block object", "<html>", `${M}block is not an object ("<html>")`],
    ["a hash that is not hex", block({ hash: `0x${"g".repeat(64)}` }), `${M}hash is not a hash (0x + 64 hex digits) ("0x${"g".repeat(42)}...)`],
    ["a short hash", block({ hash: "0xabc" }), `${M}hash is not a hash (0x + 64 hex digits) ("0xabc")`],
    ["a null hash", block({ hash: null }), `${M}hash is not a hash (0x + 64 hex digits) (null)`],
    ["a missing parent hash", block({ parentHash: undefined }), `${M}parentHash is not a hash (0x + 64 hex digits) (missing)`],
    ["another height", block({ number: "0x6" }), `${M}number is not height 5 ("0x6")`],
    ["a decimal number", block({ number: "5" }), `${M}number is not a hex quantity ("5")`],
    ["a timestamp past 2^53", block({ timestamp: "0xffffffffffffffffff" }), `${M}timestamp is not a hex quantity ("0xffffffffffffffffff")`],
    ["transactions as hashes in a full block", block({ transactions: [H(9)] }), `${M}transactions[0] is not an object ("${H(9).slice(0, 44)}...)`],
    ["HTML as a sender", block({ transactions: [tx({ from: "<img src=x onerror=alert(1)>" })] }), `${M}transactions[0].from is not an address (0x + 40 hex digits) ("<img src=x onerror=alert(1)>")`],
    ["an escape sequence in a recipient (shown escaped)", block({ transactions: [tx({ to: "0x12\u001b[31m" })] }), `${M}transactions[0].to is not an address (0x + 40 hex digits) ("0x12\\u001b[31m")`],
    ["a C1 control in a sender (shown escaped)", block({ transactions: [tx({ from: "0x\u009b31m" })] }), `${M}transactions[0].from is not an address (0x + 40 hex digits) ("0x\\u009b31m")`],
    ["a value in decimal", block({ transactions: [tx({ value: "1000" })] }), `${M}transactions[0].value is not a hex quantity ("1000")`],
    ["a value over 256 bits", block({ transactions: [tx({ value: `0x1${"0".repeat(64)}` })] }), `${M}transactions[0].value is not a hex quantity ("0x1${"0".repeat(41)}...)`],
  ])("refuses %s", (_name, value, message) => {
    expect(refusal(() => checkBlock(5, value, true))).toBe(message);
  });
});

describe("receipts", () => {
  test("well-formed receipts pass, a pre-Byzantium one without status too", () => {
    expect(refusal(() => checkReceipts(5, [receipt(), receipt({ status: undefined, logs: [] })]))).toBeNull();
  });

  const M = "the node sent malformed receipts of block 5: ";
  test.each([
    ["no list", { result: [] }, `${M}receipts is not an array ({"result":[]})`],
    ["a null receipt", [null], `${M}receipts[0] is not an object (null)`],
    ["a bad transaction hash", [receipt({ transactionHash: "0x1" })], `${M}receipts[0].transactionHash is not a hash (0x + 64 hex digits) ("0x1")`],
    ["a status that is no quantity", [receipt({ status: "success" })], `${M}receipts[0].status is not a hex quantity ("success")`],
    ["HTML as a log's contract", [receipt({ logs: [{ address: "<b>x</b>", topics: [], data: "0x" }] })], `${M}receipts[0].logs[0].address is not an address (0x + 40 hex digits) ("<b>x</b>")`],
    ["a short topic", [receipt({ logs: [{ address: A, topics: ["0x01"], data: "0x" }] })], `${M}receipts[0].logs[0].topics[0] is not a hash (0x + 64 hex digits) ("0x01")`],
    ["odd-length data", [receipt({ logs: [{ address: A, topics: [], data: "0x123" }] })], `${M}receipts[0].logs[0].data is not hex data ("0x123")`],
  ])("refuses %s", (_name, value, message) => {
    expect(refusal(() => checkReceipts(5, value))).toBe(message);
  });
});

describe("quantities", () => {
  test.each([
    ["0x0", 0],
    ["0x1b4", 436],
    ["0x01b4", 436],
  ])("the head %s is height %p", (value, height) => {
    expect(checkHeadNumber(value)).toBe(height);
  });

  test.each([["0x"], ["1b4"], ["0xg"], [436], [null]])("the head %p is refused", (value) => {
    expect(refusal(() => checkHeadNumber(value))).toStartWith("the node sent a malformed head (eth_blockNumber): result is not a hex quantity");
  });

  test.each([
    ["0x7a69", 31337],
    ["0x1", 1],
    ["31337", null],
    [31337, null],
    ["0x1ffffffffffffff", null],
  ])("eth_chainId %p is chain id %p", (value, id) => {
    expect(chainIdOf(value)).toBe(id);
  });
});
