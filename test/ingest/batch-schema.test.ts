import { describe, expect, it } from "bun:test";
import { parseBatch } from "../../src/ingest/batch-schema.ts";

const tx = (over: Record<string, unknown> = {}) => ({ hash: "0xt", from: "0xa", to: "0xb", value: "1", ...over });
const block = (over: Record<string, unknown> = {}) => ({ network: "eth", height: 1, hash: "0xb1", transactions: [tx()], ...over });
const withTx = (over: Record<string, unknown>) => block({ transactions: [tx(), tx(), tx(), tx(over)] });

describe("parseBatch", () => {
  it("accepts one block, as a one-element batch", () => {
    const parsed = parseBatch(block());
    expect(parsed).toEqual({ ok: true, blocks: [block()] as never });
  });

  it("accepts an array of blocks, an empty array, null `to`, optional transfers and extra fields", () => {
    const blocks = [
      block({ parent_hash: null, timestamp: 1763750000, extra: true }),
      block({ hash: "0xb2", transactions: [tx({ to: null, transfers: [{ asset: "0xc", from: "0xa", to: "0xb", value: "0" }] })] }),
    ];
    expect(parseBatch(blocks)).toMatchObject({ ok: true });
    expect(parseBatch([])).toEqual({ ok: true, blocks: [] });
  });

  it.each([
    ["a missing transaction hash", withTx({ hash: undefined }), "transactions[3].hash is required"],
    ["a non-integer value", withTx({ value: "1.5" }), 'transactions[3].value must be an integer string in the smallest unit without a decimal point (got "1.5")'],
    ["a negative value", withTx({ value: "-1" }), 'transactions[3].value must be an integer string in the smallest unit without a sign (got "-1")'],
    ["a value with a leading zero", withTx({ value: "01" }), 'transactions[3].value must be an integer string in the smallest unit without leading zeros (got "01")'],
    ["a value longer than 78 digits", withTx({ value: "9".repeat(79) }), `transactions[3].value must be an integer string in the smallest unit of at most 78 digits (got "${"9".repeat(38)}…)`],
    ["a value with an exponent", withTx({ value: "1e30" }), 'transactions[3].value must be an integer string in the smallest unit without an exponent (got "1e30")'],
    ["a value in hex", withTx({ value: "0x10" }), 'transactions[3].value must be an integer string in the smallest unit, not hex (got "0x10")'],
    ["a value that is no number", withTx({ value: "ten" }), 'transactions[3].value must be an integer string in the smallest unit such as "1000000" (got "ten")'],
    [
      "a value sent as a JSON number (1e30)",
      withTx({ value: 1e30 }),
      'transactions[3].value must be an integer string in the smallest unit such as "1000000", not a JSON number (got 1e+30): a number cannot carry every digit of an amount',
    ],
    [
      "a transfer value sent as a JSON number",
      withTx({ transfers: [{ asset: "0xc", value: 5 }] }),
      'transactions[3].transfers[0].value must be an integer string in the smallest unit such as "1000000", not a JSON number (got 5): a number cannot carry every digit of an amount',
    ],
    ["a numeric `to`", withTx({ to: 5 }), "transactions[3].to must be a string or null"],
    ["a fractional height", block({ height: 1.5 }), "height must be an integer"],
    ["a negative height", block({ height: -1 }), "height must be at least 0"],
    ["a missing network", block({ network: undefined }), "network is required"],
    ["missing transactions", block({ transactions: undefined }), "transactions is required"],
    ["an empty block hash", block({ hash: "" }), "hash must not be empty"],
    ["transfer decimals over 36", withTx({ transfers: [{ asset: "0xc", value: "1", decimals: 37 }] }), "transactions[3].transfers[0].decimals must be an integer from 0 to 36, or null"],
    ["a transfer without value", withTx({ transfers: [{ asset: "0xc" }] }), "transactions[3].transfers[0].value is required"],
    ["an empty transfer asset", withTx({ transfers: [{ asset: "", value: "1" }] }), "transactions[3].transfers[0].asset must not be empty"],
    ["a string body", "blocks", "body must be a block object or an array of blocks"],
  ])("names the field for %s", (_case, body, error) => {
    expect(parseBatch(JSON.parse(JSON.stringify(body)))).toEqual({ ok: false, code: "INVALID_INPUT", error });
  });

  it("prefixes the block's position when the batch is an array", () => {
    expect(parseBatch(JSON.parse(JSON.stringify([block(), withTx({ hash: undefined })])))).toEqual({ ok: false, code: "INVALID_INPUT", error: "[1].transactions[3].hash is required" });
  });

  it("names an array entry that is not a block", () => {
    expect(parseBatch([block(), 7])).toEqual({ ok: false, code: "INVALID_INPUT", error: "[1] must be an object" });
  });
});
