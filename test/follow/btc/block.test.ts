import { describe, expect, test } from "bun:test";
import { fetchedBlock, ingestedBlockOf } from "../../../src/follow/btc/block.ts";
import type { BtcBlock } from "../../../src/follow/btc/shape.ts";
import { parseBatch } from "../../../src/ingest/batch-schema.ts";
import { feedBlockOf } from "../../support/feed-block.ts";

// A checked Bitcoin-family block → the ingest's UTXO shape. Pure: blocks are built by hand.

const H = (c: string) => c.repeat(64);
const BECH32 = "rltc1qdt7dz263ca65y6q2gpqtzjts2gd0324hn32957";
const LEGACY = "mhbniHJas1kAR3P7or4E21UQ47C3KAAx2H";

/** Height 7: a coinbase (with its witness commitment), a bech32 and a legacy payment with change, and an OP_RETURN transaction. */
const BLOCK: BtcBlock = {
  height: 7,
  hash: H("7"),
  previousblockhash: H("6"),
  time: 1_700_000_007,
  transactions: [
    { txid: H("a"), inputs: [], outputs: [{ vout: 0, address: BECH32, value: 1_250_005_340n }, { vout: 1, address: null, value: 0n }] },
    {
      txid: H("b"),
      inputs: [{ txid: H("1"), vout: 0 }],
      outputs: [
        { vout: 0, address: BECH32, value: 12_345_678n },
        { vout: 1, address: LEGACY, value: 30_000_000n },
        { vout: 2, address: "rltc1q9edlnljj99mftempsaj9w3s3lktf58dmafud6m", value: 1_194_997_150n },
      ],
    },
    {
      txid: H("c"),
      inputs: [
        { txid: H("b"), vout: 2 },
        { txid: H("2"), vout: 4_294_967_295 },
      ],
      outputs: [{ vout: 0, address: null, value: 0n }, { vout: 1, address: LEGACY, value: 15_000_000_000_012_345_678n }],
    },
  ],
};

describe("toBlockInput", () => {
  const input = feedBlockOf(ingestedBlockOf("ltc", fetchedBlock(BLOCK, 1234)), "btc");

  test("carries the header: height, hash, parent and time", () => {
    expect({ network: input.network, height: input.height, hash: input.hash, parent_hash: input.parent_hash, timestamp: input.timestamp }).toEqual({
      network: "ltc",
      height: 7,
      hash: H("7"),
      parent_hash: H("6"),
      timestamp: 1_700_000_007,
    });
  });

  test("moves value in outputs only: from and to null, value 0", () => {
    for (const tx of input.transactions) expect({ from: tx.from, to: tx.to, value: tx.value }).toEqual({ from: null, to: null, value: "0" });
  });

  test("leaves the coinbase input out and keeps its outputs", () => {
    expect(input.transactions[0]).toMatchObject({ hash: H("a"), inputs: [], outputs: [{ address: BECH32, value: "1250005340" }, { address: null, value: "0" }] });
  });

  test("lists spent outpoints and outputs in n order, amounts as exact satoshi strings", () => {
    expect(input.transactions[1]).toMatchObject({
      hash: H("b"),
      inputs: [{ txid: H("1"), vout: 0 }],
      outputs: [
        { address: BECH32, value: "12345678" },
        { address: LEGACY, value: "30000000" },
        { address: "rltc1q9edlnljj99mftempsaj9w3s3lktf58dmafud6m", value: "1194997150" },
      ],
    });
  });

  test("gives an OP_RETURN output no address and keeps amounts beyond 2^53 exact", () => {
    expect(input.transactions[2].outputs).toEqual([
      { address: null, value: "0" },
      { address: LEGACY, value: "15000000000012345678" },
    ]);
    expect(input.transactions[2].inputs).toEqual([
      { txid: H("b"), vout: 2 },
      { txid: H("2"), vout: 4_294_967_295 },
    ]);
  });

  test("is a block the ingest accepts", () => {
    const parsed = parseBatch(input);
    expect(parsed.ok).toBe(true);
  });

  test("gives the genesis block no parent", () => {
    const genesis = feedBlockOf(ingestedBlockOf("ltc", fetchedBlock({ ...BLOCK, height: 0, previousblockhash: null }, 10)), "btc");
    expect(genesis.parent_hash).toBeNull();
  });
});

describe("fetchedBlock", () => {
  test("keeps the bytes read and links by previousblockhash", () => {
    const fetched = fetchedBlock(BLOCK, 1234);
    expect({ height: fetched.height, hash: fetched.hash, parentHash: fetched.parentHash, bytes: fetched.bytes }).toEqual({ height: 7, hash: H("7"), parentHash: H("6"), bytes: 1234 });
  });

  test("links the genesis block to the zero hash, which no stored block has", () => {
    expect(fetchedBlock({ ...BLOCK, height: 0, previousblockhash: null }, 10).parentHash).toBe(H("0"));
  });
});
