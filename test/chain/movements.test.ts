import { describe, expect, test } from "bun:test";
import type { TxOutput } from "../../src/chain/block.ts";
import { outputPayments } from "../../src/chain/movements.ts";

// What a UTXO transaction pays each address: one movement per address, in the order the addresses
// first appear, summed over its outputs, indexed by its first output's vout + 1.

const out = (vout: number, address: string | null, value: bigint): TxOutput => ({ vout, address, value });
const paid = (index: number, to: string, value: bigint) => ({ index, asset: null, from: null, to, value, decimals: null });

describe("outputPayments", () => {
  test("sums an address's outputs under its first, and passes over outputs that pay no address", () => {
    expect(outputPayments([out(0, "a", 5n), out(1, null, 7n), out(2, "b", 1n), out(3, "a", 2n)])).toEqual([paid(1, "a", 7n), paid(3, "b", 1n)]);
    expect(outputPayments([out(0, null, 1n)])).toEqual([]);
    expect(outputPayments([])).toEqual([]);
  });

  test("sums the same way for a transaction paying many addresses, each many times", () => {
    // 12 addresses, each paid by three outputs far apart: the sums and the order of first appearance.
    const outputs = Array.from({ length: 36 }, (_, i) => out(i, `addr${i % 12}`, BigInt(i + 1)));
    expect(outputPayments(outputs)).toEqual(Array.from({ length: 12 }, (_, k) => paid(k + 1, `addr${k}`, BigInt(k + 1 + (k + 13) + (k + 25)))));
  });
});
