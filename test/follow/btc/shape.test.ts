import { describe, expect, test } from "bun:test";
import { parseExactValues } from "../../../src/follow/btc/client.ts";
import { btcMoneyLimit } from "../../../src/config/networks.ts";
import type { NetworkConfig } from "../../../src/config/schema.ts";
import {
  blockAmounts,
  checkBlock as checkWithin,
  checkBlockCount,
  checkBlockHash,
  checkChainInfo,
  checkMempoolTx as checkTxWithin,
  checkTxids,
  satoshisOf,
  transactionAmounts,
} from "../../../src/follow/btc/shape.ts";
import { MalformedUpstreamData } from "../../../src/follow/core/upstream-data.ts";

// Shape checks of Bitcoin Core answers, on answers recorded from real nodes (trimmed of the fields
// the reader ignores: hex, scripts' asm, witnesses), parsed the way the client parses them.

/** The bound of a network `btc` with `max_money` coins (unset: Bitcoin's 21 million). */
const limitOf = (maxMoney?: number) => btcMoneyLimit("btc", { family: "btc", decimals: 8, ...(maxMoney === undefined ? {} : { max_money: maxMoney }) } as NetworkConfig);
/** Dogecoin Core's MAX_MONEY: ten billion coins. */
const DOGECOIN = limitOf(10_000_000_000);
const checkBlock = (height: number, hash: string, value: unknown) => checkWithin(height, hash, value, limitOf());
const checkMempoolTx = (txid: string, value: unknown) => checkTxWithin(txid, value, limitOf());

/**
 * Litecoin Core 0.21.2.1 regtest, `getblock <hash> 2` of block 433 (MWEB active): the coinbase
 * with its witness commitment (OP_RETURN), a payment to a legacy address with bech32 change, and
 * the HogEx transaction paying the MWEB extension block. Addresses in `scriptPubKey.addresses`.
 */
const LITECOIN_0_21 = `{"hash": "d4b3639358c4e19c02e7f9f05bc421aaabec0fe8749738ba8ca700e0b89bcadf", "height": 433, "tx": [
{"txid": "72036beb9215658b5d9ceb09d860ac82ef3249df7d7bfc2e33c96d13c6a25f01", "vin": [{"ismweb": false, "coinbase": "02b1010101"}], "vout": [
  {"ismweb": false, "value": 12.50005340, "n": 0, "scriptPubKey": {"hex": "00146afcd12b51c77542680a4040b14970521af8aab7", "type": "witness_v0_keyhash", "addresses": ["rltc1qdt7dz263ca65y6q2gpqtzjts2gd0324hn32957"]}},
  {"ismweb": false, "value": 0.00000000, "n": 1, "scriptPubKey": {"hex": "6a24aa21a9edf1de3dabf28e96f5311d6555218274b8ad162f311c3bcdd34b3b147201f6d859", "type": "nulldata"}}]},
{"txid": "4222b18d0baa24fe0e12168157f8048f29b8622d336b2a91baefaebee684a139", "vin": [{"ismweb": false, "txid": "485d684a6bb0073bafc4eadef49f7860f0dbd463d7d47d2315b1cc303c042072", "vout": 0}], "vout": [
  {"ismweb": false, "value": 11.94997150, "n": 0, "scriptPubKey": {"hex": "00142e5bf9fe52297695e7618764574611fd969a1dbb", "type": "witness_v0_keyhash", "addresses": ["rltc1q9edlnljj99mftempsaj9w3s3lktf58dmafud6m"]}},
  {"ismweb": false, "value": 0.30000000, "n": 1, "scriptPubKey": {"hex": "76a91416da551e4fde4812d0b2112c96df62d2988512a588ac", "type": "pubkeyhash", "addresses": ["mhbniHJas1kAR3P7or4E21UQ47C3KAAx2H"]}}]},
{"txid": "da58b1421a737908832d59d55221c29f83d7ae07ebd7953dbc7a6e2863793c39", "vin": [{"ismweb": false, "txid": "f80013af6764a3c0484d0594070f6cdadc7094f8064c089a0d2c2c0e80300e34", "vout": 0}], "vout": [
  {"ismweb": false, "value": 12.49990570, "n": 0, "scriptPubKey": {"hex": "58207ef115b734fed5740b7bcf33128c1d5ceb4db35ffcdd84f512fe7fda4b1afc74", "type": "witness_mweb_hogaddr"}}]}],
"time": 1795738131, "previousblockhash": "d77a51740de9978aa1ac3e3b59853f9910784752b434d7ab267c0ac222c1ef3c"}`;

/**
 * Bitcoin Core 22+ regtest, block 1547 in `getblock <hash> 2`'s form: its one transaction, the
 * coinbase, as the node decoded it (`scriptPubKey.address` and `desc`; no `addresses`, no `reqSigs`).
 */
const BITCOIN_CORE_22 = `{
  "hash": "000001f77a35e6eff98d1a6e4d912e3bc95eb7b8a11a545566481a9905ab216e",
  "confirmations": 1,
  "height": 1547,
  "version": 536870912,
  "versionHex": "20000000",
  "merkleroot": "1ed002fc5dadd422db257ec5f6f7ead9045e1ac2d0bae1298ed4d2e2c40ed177",
  "time": 1765822776,
  "bits": "207fffff",
  "difficulty": 4.656542373906925e-10,
  "nTx": 1,
  "previousblockhash": "000002d42512f36787b9f4adb960502f0fa3e1f527d053f82234986ec59b830d",
  "tx": [
    {
      "txid": "1ed002fc5dadd422db257ec5f6f7ead9045e1ac2d0bae1298ed4d2e2c40ed177",
      "hash": "1ed002fc5dadd422db257ec5f6f7ead9045e1ac2d0bae1298ed4d2e2c40ed177",
      "version": 1,
      "size": 132,
      "vsize": 132,
      "weight": 528,
      "locktime": 0,
      "vin": [
        {
          "coinbase": "020b06",
          "sequence": 4294967295
        }
      ],
      "vout": [
        {
          "value": 0.04882812,
          "n": 0,
          "scriptPubKey": {
            "asm": "0 f66bcc7b6238eff7e548553b19611c234ddfe4a4",
            "desc": "addr(bcrt1q7e4uc7mz8rhl0e2g25a3jcguydxale9yrnl4cz)#xps6m4ne",
            "hex": "0014f66bcc7b6238eff7e548553b19611c234ddfe4a4",
            "address": "bcrt1q7e4uc7mz8rhl0e2g25a3jcguydxale9yrnl4cz",
            "type": "witness_v0_keyhash"
          }
        },
        {
          "value": 0.00000000,
          "n": 1,
          "scriptPubKey": {
            "asm": "OP_RETURN aa21a9ede2f61c3f71d1defd3fa999dfa36953755c690689799962b48bebd836974e8cf9",
            "desc": "raw(6a24aa21a9ede2f61c3f71d1defd3fa999dfa36953755c690689799962b48bebd836974e8cf9)#cav96mf3",
            "hex": "6a24aa21a9ede2f61c3f71d1defd3fa999dfa36953755c690689799962b48bebd836974e8cf9",
            "type": "nulldata"
          }
        }
      ]
    }
  ]
}`;

const LTC_HASH = "d4b3639358c4e19c02e7f9f05bc421aaabec0fe8749738ba8ca700e0b89bcadf";
const H = (c: string) => c.repeat(64);

/** A minimal verbosity-2 block at height 5 whose one transaction pays one output; `edit` changes the parsed answer. */
function block5(edit: (b: any) => void = () => {}, valueText = "0.00100000"): unknown {
  const b = parseExactValues(
    `{"hash":"${H("a")}","height":5,"previousblockhash":"${H("b")}","time":1700000000,"tx":[` +
      `{"txid":"${H("c")}","vin":[{"txid":"${H("d")}","vout":1}],"vout":[{"value":${valueText},"n":0,"scriptPubKey":{"type":"witness_v0_keyhash","address":"bc1qexample"}}]}]}`,
  ) as any;
  edit(b);
  return b;
}

describe("parseExactValues", () => {
  test("keeps every value number as the decimal text the node printed", () => {
    const parsed = parseExactValues(`[{"result":{"vout":[{"value":0.10000000,"n":0},{"value" : 21000000.00000000 ,"n":1}]},"error":null,"id":0}]`) as any;
    expect(parsed[0].result.vout[0].value).toBe("0.10000000");
    expect(parsed[0].result.vout[1].value).toBe("21000000.00000000");
  });

  test("leaves other numbers and text inside strings alone", () => {
    const parsed = parseExactValues(`{"n":3,"difficulty":4.656542373906925e-10,"note":"\\"value\\":1.5","values":[0.5]}`) as any;
    expect(parsed).toEqual({ n: 3, difficulty: 4.656542373906925e-10, note: '"value":1.5', values: [0.5] });
  });

  test("keeps a value already a string as it is", () => {
    expect(parseExactValues(`{"value":"0.5"}`)).toEqual({ value: "0.5" });
  });

  // Each is parsed as it is, then its numbers put back by the text's order; where that order is not
  // the parsed object's, the text is parsed again with each value quoted. Either way, the same answer.
  test.each([
    ["a repeated key keeps the last value's text", `{"value":1.10000000,"value":2.20000000}`, { value: "2.20000000" }],
    ["a repeated key whose last value is a string", `{"value":1.5,"value":"x"}`, { value: "x" }],
    ["a repeated object keeps the last one's", `{"a":{"value":1.0},"b":{"value":3},"a":{"value":2.00}}`, { a: { value: "2.00" }, b: { value: "3" } }],
    ["the same number printed twice, repeated", `{"a":{"value":1.0},"a":{"value":1.0}}`, { a: { value: "1.0" } }],
    // An object lists index-like keys first: "0"'s value comes after "b"'s in the text.
    ["index-like keys", `{"b":{"value":150000000000.12345679},"0":{"value":150000000000.12345678}}`, { b: { value: "150000000000.12345679" }, 0: { value: "150000000000.12345678" } }],
    ["values past a double's digits, in order", `[{"value":150000000000.12345678},{"value":150000000000.12345679}]`, [{ value: "150000000000.12345678" }, { value: "150000000000.12345679" }]],
    ["nested values and other numbers", `{"value":0.5,"vout":[{"n":0,"value":-0,"x":{"value":1e-8}}],"n":2}`, { value: "0.5", vout: [{ n: 0, value: "-0", x: { value: "1e-8" } }], n: 2 }],
  ])("%s", (_, text, expected) => {
    expect(parseExactValues(text)).toEqual(expected);
  });

  describe("at the sites a known shape names", () => {
    /** A block whose outputs are `values` (texts as printed), one transaction each; `extra` goes into the first transaction. */
    const blockText = (values: string[][], extra = "") =>
      `{"hash":"${H("a")}","height":5,"tx":[${values
        .map((outs, i) => `{"txid":"${H("c")}"${i === 0 ? extra : ""},"vin":[],"vout":[${outs.map((v, n) => `{"value":${v},"n":${n},"scriptPubKey":{"address":"x${n}"}}`).join(",")}]}`)
        .join(",")}]}`;

    test.each([
      ["values past a double's digits, across transactions", blockText([["150000000000.12345678", "0.00000001"], ["150000000000.12345679"]])],
      ["no outputs", blockText([[]])],
      // Each of these leaves a noted number the sites do not hold: the text is parsed again, quoted.
      ["a value outside the outputs", blockText([["150000000000.12345678"]], `,"fee":{"value":150000000000.12345679}`)],
      ["a value in a script", blockText([["1.5"]]).replace(`{"address":"x0"}`, `{"address":"x0","value":150000000000.12345679}`)],
      ["an output repeating its value", blockText([["150000000000.12345678"]]).replace(`"value":150000000000.12345678`, `"value":150000000000.12345679,"value":150000000000.12345678`)],
      ["an output holding its value as text", blockText([["150000000000.12345678"]]).replace(`"value":150000000000.12345678`, `"value":"7"`) + ` `],
    ])("%s: the same answer as a walk of every key", (_, text) => {
      const walked = parseExactValues(text) as { tx: { vout: { value: unknown }[] }[] };
      expect(parseExactValues(text, blockAmounts)).toEqual(walked);
      expect(parseExactValues(`{"txid":"${H("c")}","vout":${JSON.stringify(walked.tx[0].vout)}}`, transactionAmounts)).toEqual({ txid: H("c"), vout: walked.tx[0].vout });
    });

    test("keeps each output's text, past what a double holds", () => {
      const parsed = parseExactValues(blockText([["150000000000.12345678", "0.00000001"], ["150000000000.12345679"]]), blockAmounts) as any;
      expect(parsed.tx.map((t: any) => t.vout.map((o: any) => o.value))).toEqual([["150000000000.12345678", "0.00000001"], ["150000000000.12345679"]]);
      const fallback = parseExactValues(blockText([["150000000000.12345678"]], `,"fee":{"value":150000000000.12345679}`), blockAmounts) as any;
      expect([fallback.tx[0].vout[0].value, fallback.tx[0].fee.value]).toEqual(["150000000000.12345678", "150000000000.12345679"]);
    });

    test("a Litecoin Core block reads the same either way", () => {
      expect(checkBlock(433, LTC_HASH, parseExactValues(LITECOIN_0_21, blockAmounts))).toEqual(checkBlock(433, LTC_HASH, parseExactValues(LITECOIN_0_21)));
    });
  });

  test("an answer nesting too deep is refused before it is parsed", () => {
    expect(() => parseExactValues(`${"[".repeat(65)}${"]".repeat(65)}`)).toThrow("answered with JSON nested deeper than 64 levels");
    expect(JSON.stringify(parseExactValues(`${"[".repeat(63)}{"value":1}${"]".repeat(63)}`))).toBe(`${"[".repeat(63)}{"value":"1"}${"]".repeat(63)}`);
  });
});

describe("satoshisOf", () => {
  test.each([
    ["0.00100000", 100_000n],
    ["12.50005340", 1_250_005_340n],
    ["0.00000001", 1n],
    ["0.00000000", 0n],
    ["0", 0n],
    ["0.3", 30_000_000n],
    ["21000000.00000000", 2_100_000_000_000_000n],
    // Dogecoin-size: past 2^53 satoshi (about 90 million coins), which a double cannot hold exactly.
    ["150000000000.12345678", 15_000_000_000_012_345_678n],
    ["99999999999999999999.99999999", 9_999_999_999_999_999_999_999_999_999n],
  ])("%s is %p satoshi", (text, satoshis) => {
    expect(satoshisOf(text)).toBe(satoshis);
  });

  test.each(["0.000000001", "-1.00000000", "1e-8", "1E8", "01.5", "1.", ".5", "", " 1", "1,5", "0x10", "123456789012345678901"])("refuses %p", (text) => {
    expect(satoshisOf(text)).toBeNull();
  });
});

describe("checkBlock", () => {
  test("reads a Litecoin Core 0.21 block: addresses[0], the coinbase, OP_RETURN and HogEx outputs without payee", () => {
    const block = checkBlock(433, LTC_HASH, parseExactValues(LITECOIN_0_21));
    expect(block).toEqual({
      height: 433,
      hash: LTC_HASH,
      previousblockhash: "d77a51740de9978aa1ac3e3b59853f9910784752b434d7ab267c0ac222c1ef3c",
      time: 1795738131,
      transactions: [
        {
          txid: "72036beb9215658b5d9ceb09d860ac82ef3249df7d7bfc2e33c96d13c6a25f01",
          inputs: [],
          outputs: [
            { vout: 0, address: "rltc1qdt7dz263ca65y6q2gpqtzjts2gd0324hn32957", value: 1_250_005_340n },
            { vout: 1, address: null, value: 0n },
          ],
        },
        {
          txid: "4222b18d0baa24fe0e12168157f8048f29b8622d336b2a91baefaebee684a139",
          inputs: [{ txid: "485d684a6bb0073bafc4eadef49f7860f0dbd463d7d47d2315b1cc303c042072", vout: 0 }],
          outputs: [
            { vout: 0, address: "rltc1q9edlnljj99mftempsaj9w3s3lktf58dmafud6m", value: 1_194_997_150n },
            { vout: 1, address: "mhbniHJas1kAR3P7or4E21UQ47C3KAAx2H", value: 30_000_000n },
          ],
        },
        {
          txid: "da58b1421a737908832d59d55221c29f83d7ae07ebd7953dbc7a6e2863793c39",
          inputs: [{ txid: "f80013af6764a3c0484d0594070f6cdadc7094f8064c089a0d2c2c0e80300e34", vout: 0 }],
          outputs: [{ vout: 0, address: null, value: 1_249_990_570n }],
        },
      ],
    });
  });

  test("reads a Bitcoin Core 22+ block: scriptPubKey.address", () => {
    const hash = "000001f77a35e6eff98d1a6e4d912e3bc95eb7b8a11a545566481a9905ab216e";
    const block = checkBlock(1547, hash, parseExactValues(BITCOIN_CORE_22));
    expect(block.previousblockhash).toBe("000002d42512f36787b9f4adb960502f0fa3e1f527d053f82234986ec59b830d");
    expect(block.transactions).toEqual([
      {
        txid: "1ed002fc5dadd422db257ec5f6f7ead9045e1ac2d0bae1298ed4d2e2c40ed177",
        inputs: [],
        outputs: [
          { vout: 0, address: "bcrt1q7e4uc7mz8rhl0e2g25a3jcguydxale9yrnl4cz", value: 4_882_812n },
          { vout: 1, address: null, value: 0n },
        ],
      },
    ]);
  });

  test("keeps a Dogecoin-size amount beyond 2^53 satoshi exact", () => {
    const block = checkWithin(5, H("a"), block5(undefined, "9999999999.12345678"), DOGECOIN);
    expect(block.transactions[0].outputs[0].value).toBe(999_999_999_912_345_678n);
  });

  test("an output of more than the coin's MAX_MONEY is refused, naming the bound and where it is set", () => {
    expect(checkBlock(5, H("a"), block5(undefined, "21000000.00000000")).transactions[0].outputs[0].value).toBe(2_100_000_000_000_000n);
    expect(() => checkBlock(5, H("a"), block5(undefined, "21000000.00000001"))).toThrow(
      'the node sent a malformed block 5: tx[0].vout[0].value is not an amount of at most 21000000 coins ([networks.btc] max_money) ("21000000.00000001")',
    );
    expect(() => checkWithin(5, H("a"), block5(undefined, "10000000000.00000001"), DOGECOIN)).toThrow(
      'tx[0].vout[0].value is not an amount of at most 10000000000 coins ([networks.btc] max_money) ("10000000000.00000001")',
    );
  });

  test("so are outputs that together carry more, in a block and in the mempool", () => {
    const split = (b: any) => b.tx[0].vout.push({ ...b.tx[0].vout[0], n: 1, value: "20000000.00000000" });
    expect(() => checkBlock(5, H("a"), block5(split, "1000000.00000001"))).toThrow(
      'the node sent a malformed block 5: tx[0].vout is not outputs of at most 21000000 coins ([networks.btc] max_money) together ("21000000.00000001 by vout[1]")',
    );
    const tx = { txid: H("c"), vin: [], vout: [0, 1, 2].map((n) => ({ value: "8000000.00000000", n, scriptPubKey: { address: "bc1qexample" } })) };
    expect(() => checkMempoolTx(H("c"), tx)).toThrow("vout is not outputs of at most 21000000 coins ([networks.btc] max_money) together (\"24000000 by vout[2]\")");
  });

  test("an output naming several addresses (bare multisig, older Core) pays no single one", () => {
    const block = checkBlock(5, H("a"), block5((b) => (b.tx[0].vout[0].scriptPubKey = { type: "multisig", addresses: ["1AAA", "1BBB"] })));
    expect(block.transactions[0].outputs[0].address).toBeNull();
  });

  test("lower-cases hashes", () => {
    const block = checkBlock(5, H("A"), block5((b) => ((b.hash = H("A")), (b.tx[0].txid = H("C")), (b.tx[0].vin[0].txid = H("D")))));
    expect([block.hash, block.transactions[0].txid, block.transactions[0].inputs[0].txid]).toEqual([H("a"), H("c"), H("d")]);
  });

  test("takes a genesis block without previousblockhash", () => {
    const genesis = block5((b) => ((b.height = 0), delete b.previousblockhash));
    expect(checkBlock(0, H("a"), genesis).previousblockhash).toBeNull();
  });

  test("skips MWEB entries, which spend and pay no outpoint of the chain", () => {
    const block = checkBlock(5, H("a"), block5((b) => (b.tx[0].vin.push({ ismweb: true, output_id: H("e") }), b.tx[0].vout.unshift({ ismweb: true, output_id: H("f") }))));
    expect(block.transactions[0].inputs).toEqual([{ txid: H("d"), vout: 1 }]);
    expect(block.transactions[0].outputs).toEqual([{ vout: 0, address: "bc1qexample", value: 100_000n }]);
  });

  test.each<[string, (b: any) => void, string]>([
    ["a hash that is no hex", (b) => (b.hash = `${"z".repeat(63)}0`), "hash is not a hash"],
    ["another block than the one asked for", (b) => (b.hash = H("9")), "hash is not the hash asked for"],
    ["another height", (b) => (b.height = 6), "height is not height 5"],
    ["a height that is no integer", (b) => (b.height = 5.5), "height is not a non-negative integer"],
    ["no previousblockhash above genesis", (b) => delete b.previousblockhash, "previousblockhash is not a hash"],
    ["no time", (b) => delete b.time, "time is not a non-negative integer"],
    ["tx that is no array", (b) => (b.tx = {}), "tx is not an array"],
    ["a txid that is no hash", (b) => (b.tx[0].txid = "<script>"), "tx[0].txid is not a hash"],
    ["a transaction without vout", (b) => delete b.tx[0].vout, "tx[0].vout is not an array"],
    ["a transaction without vin", (b) => delete b.tx[0].vin, "tx[0].vin is not an array"],
    ["an input without txid", (b) => delete b.tx[0].vin[0].txid, "tx[0].vin[0].txid is not a hash"],
    ["an input with a negative vout", (b) => (b.tx[0].vin[0].vout = -1), "tx[0].vin[0].vout is not a non-negative integer"],
    ["a coinbase that is no hex", (b) => (b.tx[0].vin[0] = { coinbase: "xyz" }), "tx[0].vin[0].coinbase is not hex data"],
    ["an output without value", (b) => delete b.tx[0].vout[0].value, "tx[0].vout[0].value is not an amount"],
    ["a value parsed as a float, not kept as text", (b) => (b.tx[0].vout[0].value = 0.001), "tx[0].vout[0].value is not an amount"],
    ["a negative value", (b) => (b.tx[0].vout[0].value = "-0.00100000"), "tx[0].vout[0].value is not an amount"],
    ["an output out of n order", (b) => (b.tx[0].vout[0].n = 1), "tx[0].vout[0].n is not output index 0"],
    ["an output without scriptPubKey", (b) => delete b.tx[0].vout[0].scriptPubKey, "tx[0].vout[0].scriptPubKey is not an object"],
    ["an address holding markup", (b) => (b.tx[0].vout[0].scriptPubKey.address = "<img src=x>"), "tx[0].vout[0].scriptPubKey.address is not an address"],
    ["addresses that are no array", (b) => (b.tx[0].vout[0].scriptPubKey = { addresses: "bc1qexample" }), "tx[0].vout[0].scriptPubKey.addresses is not an array"],
  ])("refuses %s", (_name, edit, message) => {
    expect(() => checkBlock(5, H("a"), block5(edit))).toThrow(MalformedUpstreamData);
    expect(() => checkBlock(5, H("a"), block5(edit))).toThrow(`the node sent a malformed block 5: ${message}`);
  });

  test("refuses an amount with more than 8 decimals, as the node's text has it", () => {
    expect(() => checkBlock(5, H("a"), block5(undefined, "0.000000001"))).toThrow('tx[0].vout[0].value is not an amount of at most 8 decimals ("0.000000001")');
  });

  test("refuses an amount in exponent notation", () => {
    expect(() => checkBlock(5, H("a"), block5(undefined, "1e-8"))).toThrow(MalformedUpstreamData);
  });

  test("shows a hostile value short and escaped", () => {
    const hostile = `\u009b31m${"x".repeat(500)}`;
    try {
      checkBlock(5, H("a"), block5((b) => (b.tx[0].vout[0].scriptPubKey.address = hostile)));
      throw new Error("accepted");
    } catch (e) {
      const message = (e as Error).message;
      expect(message).not.toContain("\u009b");
      expect(message).toContain("\\u009b");
      expect(message.length).toBeLessThan(200);
    }
  });
});

describe("small answers", () => {
  test("getblockcount is a height", () => {
    expect(checkBlockCount(433)).toBe(433);
    expect(() => checkBlockCount("433")).toThrow("the node sent a malformed head (getblockcount): result is not a non-negative integer");
    expect(() => checkBlockCount(-1)).toThrow(MalformedUpstreamData);
  });

  test("getblockhash is a hash, lower-cased", () => {
    expect(checkBlockHash(7, H("F"))).toBe(H("f"));
    expect(() => checkBlockHash(7, null)).toThrow("the node sent a malformed hash of block 7 (getblockhash): result is not a hash");
  });

  test("getblockchaininfo names its chain", () => {
    expect(checkChainInfo({ chain: "regtest", blocks: 3 })).toEqual({ chain: "regtest" });
    expect(() => checkChainInfo({ chain: "main net" })).toThrow("chain is not a chain name");
    expect(() => checkChainInfo(null)).toThrow("result is not an object");
  });
});

describe("mempool answers", () => {
  test("getrawmempool is a list of txids, lower-cased", () => {
    expect(checkTxids([H("A"), H("b")])).toEqual([H("a"), H("b")]);
    expect(() => checkTxids([H("a"), "nope"])).toThrow("the node sent a malformed mempool (getrawmempool): result[1] is not a hash");
  });

  test("getrawtransaction is read like a block's transaction", () => {
    const answer = parseExactValues(`{"txid":"${H("c")}","vin":[{"txid":"${H("d")}","vout":1}],"vout":[{"value":0.5,"n":0,"scriptPubKey":{"addresses":["${"m".repeat(34)}"]}}],"blockhash":"${H("e")}"}`);
    expect(checkMempoolTx(H("C"), answer)).toEqual({ txid: H("c"), inputs: [{ txid: H("d"), vout: 1 }], outputs: [{ vout: 0, address: "m".repeat(34), value: 50_000_000n }] });
    expect(() => checkMempoolTx(H("f"), answer)).toThrow("txid is not the txid asked for");
    expect(() => checkMempoolTx(H("c"), { txid: H("c"), vin: [] })).toThrow(`the node sent a malformed transaction "${H("c")}" (getrawtransaction): vout is not an array`);
  });
});
