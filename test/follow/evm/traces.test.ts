import { describe, expect, test } from "bun:test";
import { debugInternalMoves, parityInternalMoves } from "../../../src/follow/evm/traces.ts";

// Which calls of a trace moved native value, for both tracers: reverted subtrees, the outer frame,
// value-less and delegated calls left out; malformed answers refused.

const [A, B, C, W] = ["0x" + "a".repeat(40), "0x" + "b".repeat(40), "0x" + "c".repeat(40), "0x" + "d".repeat(40)];
const TX = "0x" + "1".repeat(64);
const BLOCK = "0x" + "2".repeat(64);

describe("callTracer (debug)", () => {
  const frame = (type: string, from: string, to: string, value: string, extra: Record<string, unknown> = {}) => ({ type, from, to, value, ...extra });

  test("skips the transaction's own frame, a reverted subtree, delegate and static calls; keeps calls and creates with value, parents first", () => {
    const root = frame("CALL", A, W, "0x10", {
      calls: [
        frame("CALL", W, B, "0x5", { calls: [frame("CALL", B, C, "0x1")] }),
        frame("CALL", W, C, "0x7", { error: "execution reverted", calls: [frame("CALL", C, B, "0x2")] }),
        frame("DELEGATECALL", W, C, "0x10"),
        frame("STATICCALL", W, C, "0x0"),
        frame("CREATE2", W, C, "0x3"),
        frame("CALL", W, B, "0x0"),
      ],
    });
    expect(debugInternalMoves(1, [TX], [{ txHash: TX, result: root }])).toEqual(
      new Map([[TX, [{ from: W, to: B, value: 5n }, { from: B, to: C, value: 1n }, { from: W, to: C, value: 3n }]]]),
    );
  });

  test("a transaction that reverted moves nothing", () => {
    expect(debugInternalMoves(1, [TX], [{ result: frame("CALL", A, W, "0x0", { error: "reverted", calls: [frame("CALL", W, B, "0x5")] }) }]).size).toBe(0);
  });

  test.each([
    ["not one result per transaction", []],
    ["a result for another transaction", [{ txHash: "0x" + "9".repeat(64), result: frame("CALL", A, W, "0x0") }]],
    ["a value that is no quantity", [{ result: frame("CALL", A, W, "0x0", { calls: [frame("CALL", W, B, "lots")] }) }]],
    ["an address that is not one", [{ result: frame("CALL", A, W, "0x0", { calls: [frame("CALL", W, "<script>", "0x1")] }) }]],
  ])("refuses %s", (_, answer) => {
    expect(() => debugInternalMoves(1, [TX], answer)).toThrow(/^block 1: the node's trace/);
  });
});

describe("trace_block (parity)", () => {
  const trace = (traceAddress: number[], action: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: "call", action: { callType: "call", ...action }, traceAddress, transactionHash: TX, blockHash: BLOCK, ...extra });

  test("drops everything under a failed trace, delegate calls and rewards; reads creates' addresses from their result", () => {
    const answer = [
      trace([], { from: A, to: W, value: "0x10" }),
      trace([0], { from: W, to: B, value: "0x5" }),
      trace([1], { from: W, to: C, value: "0x7" }, { error: "Reverted" }),
      trace([1, 0], { from: C, to: B, value: "0x2" }),
      trace([10], { from: W, to: C, value: "0x4" }),
      trace([2], { from: W, to: C, value: "0x9", callType: "delegatecall" }),
      { type: "create", action: { from: W, value: "0x3" }, result: { address: C }, traceAddress: [3], transactionHash: TX, blockHash: BLOCK },
      { type: "reward", action: { author: A, value: "0x99" }, traceAddress: [], transactionHash: null, blockHash: BLOCK },
    ];
    expect(parityInternalMoves(1, BLOCK, answer)).toEqual(
      new Map([[TX, [{ from: W, to: B, value: 5n }, { from: W, to: C, value: 4n }, { from: W, to: C, value: 3n }]]]),
    );
  });

  test("refuses a trace of another block", () => {
    expect(() => parityInternalMoves(1, "0x" + "3".repeat(64), [trace([], { from: A, to: W, value: "0x1" })])).toThrow("block 1: the node's trace is of another block");
  });
});
