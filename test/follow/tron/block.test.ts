import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tronAddressOfAccountId } from "../../../src/chain/address/tron.ts";
import { createTronAddressBook } from "../../../src/follow/tron/address-book.ts";
import { ingestedBlockOf, joinBlock, tokenContracts, TRANSFER_TOPIC, trc20Transfers } from "../../../src/follow/tron/block.ts";
import { checkBlock, checkHeader, checkInfos, InexactNumber, parseExact } from "../../../src/follow/tron/shape.ts";
import { MalformedUpstreamData } from "../../../src/follow/core/upstream-data.ts";
import { tronChainProbe } from "../../../src/follow/tron/reader.ts";
import { feedBlockOf } from "../../support/feed-block.ts";
import { hexAddress, tronAddress } from "../../support/tron-node.ts";

// The Tron follower's pure parts (docs/chains.md), on the recorded bodies of
// test/fixtures/tron/ and on variations of them: what a java-tron answer must look like, and what
// a block of transactions and their execution results becomes in the ingest shape.

type Rec = Record<string, any>;
const fixture = (name: string): Rec => JSON.parse(readFileSync(join(import.meta.dir, "../../fixtures/tron", name), "utf8"));
const book = () => createTronAddressBook();
const USDT = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
const A = tronAddress(0xa1);
const B = tronAddress(0xb2);
const word = (hex: string) => hex.padStart(64, "0");

/** A block at `height` holding `txs`, its header the recorded one. */
function block(height: number, txs: Rec[]): Rec {
  const header = fixture("getblock-header.json");
  header.block_header.raw_data.number = height;
  return { ...header, transactions: txs };
}

/** The recorded TRX transfer (visible: true), as transaction `id` from `from` to `to`. */
function trx(id: string, from = A, to = B, amount: unknown = 1_000_000): Rec {
  const tx = fixture("transaction-transfer.json");
  tx.txID = id;
  Object.assign(tx.raw_data.contract[0].parameter.value, { owner_address: from, to_address: to, amount });
  return tx;
}

/** The recorded contract call (visible: false, hex addresses), on USDT, with `contractRet`. */
function trigger(id: string, contractRet = "SUCCESS"): Rec {
  const tx = fixture("transaction-trigger.json");
  tx.txID = id;
  tx.ret = [{ contractRet }];
  Object.assign(tx.raw_data.contract[0].parameter.value, { owner_address: hexAddress(A), contract_address: hexAddress(USDT) });
  return tx;
}

/** A USDT Transfer log as java-tron prints it with visible: true. */
const transferLog = (from: string, to: string, value: bigint, address: string = USDT) => ({
  address,
  topics: [TRANSFER_TOPIC, word(hexAddress(from).slice(2)), word(hexAddress(to).slice(2))],
  data: word(value.toString(16)),
});

/** The recorded execution result of the call, for transaction `id` at `height`. */
function info(id: string, height: number, over: Rec = {}): Rec {
  const i = fixture("transactioninfo-trigger.json");
  return { ...i, id, blockNumber: height, log: [transferLog(A, B, 2_500_000n)], ...over };
}

const ID = (n: number) => n.toString(16).padStart(64, "0");

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

describe("addresses", () => {
  test("the recorded transfer's base58 addresses are the 41… hex of its raw_data_hex, both ways", () => {
    const tx = fixture("transaction-transfer.json");
    const { owner_address, to_address } = tx.raw_data.contract[0].parameter.value;
    expect(tx.raw_data_hex).toContain(hexAddress(owner_address));
    expect(tx.raw_data_hex).toContain(hexAddress(to_address));
    const b = book();
    expect(b.fromNode(hexAddress(owner_address))).toBe(owner_address);
    expect(b.fromNode(owner_address)).toBe(owner_address);
    expect(tronAddressOfAccountId(hexAddress(USDT).slice(2))).toBe(USDT);
  });

  test.each([
    ["a lower-cased address (the checksum fails)", USDT.toLowerCase()],
    ["HTML", "<b>pwned</b>"],
    ["a bitcoin address", "1BoatSLRHtKNngkdXEeobR76b53LETtpyT"],
    ["20 bytes of hex where 21 belong", hexAddress(USDT).slice(2)],
    ["a number", 41],
  ])("%s is no address of a block's transaction", (_name, value) => {
    expect(book().fromNode(value)).toBeNull();
  });
});

describe("shapes", () => {
  test("the recorded header passes; the genesis block leaves its number, parent and timestamp out", () => {
    const header = fixture("getblock-header.json");
    expect(checkHeader(66987565, header, book())).toEqual({
      height: 66987565,
      hash: "0000000003fe262d52bfa4b2814f816fd2e57af5b98a33d60d8630a03a908e0e",
      parentHash: "0000000003fe262c85cd6b02033f4c3e5c1efa35de256a17bd906dc61fb1aeed",
      timestamp: 1777445121,
    });
    const genesis = { blockID: ID(7), block_header: { raw_data: { txTrieRoot: ID(1) } } };
    expect(checkHeader(0, genesis, book())).toEqual({ height: 0, hash: ID(7), parentHash: "0".repeat(64), timestamp: 0 });
    expect(checkHeader(null, header, book()).height).toBe(66987565);
  });

  const M = "the node sent a malformed block 5: ";
  test.each([
    ["an HTML page", "<html>", `${M}block is not an object ("<html>")`],
    ["a block id that is no hash", { ...block(5, []), blockID: "0x12" }, `${M}blockID is not a hash (64 hex digits) ("0x12")`],
    ["another height", block(6, []), `${M}block_header.raw_data.number is not height 5 (6)`],
    ["a missing parent above the genesis block", (() => { const b = block(5, []); delete b.block_header.raw_data.parentHash; return b; })(), `${M}block_header.raw_data.parentHash is not a hash (64 hex digits) (missing)`],
    ["HTML in a recipient", block(5, [trx(ID(1), A, "<b>pwned</b>" as string)]), `${M}transactions[0].raw_data.contract[0].parameter.value.to_address is not a tron address (base58check T…, or 41 + 40 hex digits) ("<b>pwned</b>")`],
    ["an owner with a broken checksum", block(5, [trx(ID(1), USDT.toLowerCase())]), `${M}transactions[0].raw_data.contract[0].parameter.value.owner_address is not a tron address (base58check T…, or 41 + 40 hex digits) ("tr7nhqjekqxgtci8q8zy4pl8otszgjlj6t")`],
    ["a negative amount", block(5, [trx(ID(1), A, B, -5)]), `${M}transactions[0].raw_data.contract[0].parameter.value.amount is not a JSON number of sun from 0 to 2^63 - 1 (-5)`],
    ["an amount given as text", block(5, [trx(ID(1), A, B, "1e6")]), `${M}transactions[0].raw_data.contract[0].parameter.value.amount is not a JSON number of sun from 0 to 2^63 - 1 ("1e6")`],
    // java-tron prints int64 fields as bare numbers (JsonFormat): quoted digits are no answer of it.
    ["an amount given as a string of digits", block(5, [trx(ID(1), A, B, "2000000")]), `${M}transactions[0].raw_data.contract[0].parameter.value.amount is not a JSON number of sun from 0 to 2^63 - 1 ("2000000")`],
    ["a fractional amount", block(5, [trx(ID(1), A, B, 1.5)]), `${M}transactions[0].raw_data.contract[0].parameter.value.amount is not a JSON number of sun from 0 to 2^63 - 1 (1.5)`],
    ["a transaction id that is no hash", block(5, [trx("xyz")]), `${M}transactions[0].txID is not a hash (64 hex digits) ("xyz")`],
    ["a result with markup", block(5, [{ ...trx(ID(1)), ret: [{ contractRet: "<SUCCESS>" }] }]), `${M}transactions[0].ret[0].contractRet is not a result name ("<SUCCESS>")`],
    ["a transaction without a contract", block(5, [{ ...trx(ID(1)), raw_data: { contract: [] } }]), `${M}transactions[0].raw_data.contract is not a list of one contract ([])`],
  ])("a block with %s is refused, naming the field", (_name, value, message) => {
    expect(refusal(() => checkBlock(5, value, book()))).toBe(message);
  });

  test("a contract the node could not print, and other contract types, move nothing; their owner is still named", () => {
    const unknown = trx(ID(1));
    unknown.raw_data.contract[0] = { parameter: { value: null, type_url: "type.googleapis.com/protocol.Future" }, type: "FutureContract" };
    const vote = trx(ID(2));
    vote.raw_data.contract[0] = { parameter: { value: { owner_address: A, votes: [{ vote_address: B, vote_count: 5 }] } }, type: "VoteWitnessContract" };
    const checked = checkBlock(5, block(5, [unknown, vote]), book());
    expect(checked.transactions).toEqual([
      { hash: ID(1), type: "FutureContract", from: null, to: null, value: 0n, contractRet: "SUCCESS" },
      { hash: ID(2), type: "VoteWitnessContract", from: A, to: null, value: 0n, contractRet: "SUCCESS" },
    ]);
  });

  test("an amount beyond 2^53 sun asks for the exact parse, which keeps its digits", () => {
    const text = JSON.stringify(block(5, [trx(ID(1), A, B, 1)])).replace('"amount":1', '"amount":90071992547409930');
    expect(() => checkBlock(5, JSON.parse(text), book())).toThrow(InexactNumber);
    expect(checkBlock(5, parseExact(text), book()).transactions[0].value).toBe(90071992547409930n);
  });

  test("an amount is an int64: 2^63 - 1 sun passes, one more, or a large number in exponent form, is refused after the exact parse", () => {
    const withAmount = (printed: string) => JSON.stringify(block(5, [trx(ID(1), A, B, 1)])).replace('"amount":1', `"amount":${printed}`);
    expect(checkBlock(5, parseExact(withAmount("9223372036854775807")), book()).transactions[0].value).toBe(2n ** 63n - 1n);
    for (const printed of ["9223372036854775808", "1e20"]) {
      expect(() => checkBlock(5, JSON.parse(withAmount(printed)), book())).toThrow(InexactNumber);
      expect(refusal(() => checkBlock(5, parseExact(withAmount(printed)), book()))).toBe(
        `${M}transactions[0].raw_data.contract[0].parameter.value.amount is not a JSON number of sun from 0 to 2^63 - 1 (${printed})`,
      );
    }
  });

  const I = "the node sent malformed transaction info of block 5: ";
  test.each([
    ["an object where the list belongs", { Error: "x" }, `${I}the answer is not an array ({"Error":"x"})`],
    ["another block's info", [info(ID(1), 6)], `${I}[0].blockNumber is not height 5 (6)`],
    ["a log topic that is no hash", [info(ID(1), 5, { log: [{ ...transferLog(A, B, 1n), topics: ["0xddf2"] }] })], `${I}[0].log[0].topics[0] is not a hash (64 hex digits) ("0xddf2")`],
    ["log data that is no hex", [info(ID(1), 5, { log: [{ ...transferLog(A, B, 1n), data: "0007..." }] })], `${I}[0].log[0].data is not hex data ("0007...")`],
    ["a log contract that is no address", [info(ID(1), 5, { log: [{ ...transferLog(A, B, 1n), address: "javascript:alert(1)" }] })], `${I}[0].log[0].address is not a tron address (base58check T…, or 40 hex digits) ("javascript:alert(1)")`],
  ])("an info list with %s is refused", (_name, value, message) => {
    expect(refusal(() => checkInfos(5, value, book()))).toBe(message);
  });

  test("the recorded infos pass; a log's 20-byte hex address (no visible) is read as T…", () => {
    const recorded = fixture("transactioninfo-trigger.json");
    recorded.log[0].data = word("7");
    const [checked] = checkInfos(66985120, [recorded], book());
    expect(checked).toMatchObject({ id: recorded.id, failed: false, receiptResult: "SUCCESS" });
    expect(checked.logs[0].address).toBe(tronAddressOfAccountId("9ff8fc48fb114ccd5bbdc24a86f0c73082f08825"));
    const [transfer] = checkInfos(27773932, [fixture("transactioninfo-transfer.json")], book());
    expect(transfer).toEqual({ id: "21851bcf1faf22c99a7a49c4f246d709cf9f54db2f264ca145adcd464ea155a4", failed: false, receiptResult: null, logs: [] });
  });
});

describe("a block with its execution results", () => {
  const joined = (txs: Rec[], infos: Rec[]) => {
    const b = book();
    return joinBlock(checkBlock(5, block(5, txs), b), checkInfos(5, infos, b), b, 1234);
  };

  test("the recorded TRX transfer moves its amount; a USDT call moves its Transfer log, with the token's decimals", () => {
    const recorded = fixture("transaction-transfer.json");
    const fetched = joined([recorded, trigger(ID(2))], [{ ...fixture("transactioninfo-transfer.json"), blockNumber: 5 }, info(ID(2), 5)]);
    const input = feedBlockOf(ingestedBlockOf("tron", fetched, (c) => (c === USDT ? 6 : null)), "tron");
    expect(input).toEqual({
      network: "tron",
      height: 5,
      hash: "0000000003fe262d52bfa4b2814f816fd2e57af5b98a33d60d8630a03a908e0e",
      parent_hash: "0000000003fe262c85cd6b02033f4c3e5c1efa35de256a17bd906dc61fb1aeed",
      timestamp: 1777445121,
      transactions: [
        { hash: recorded.txID, from: "TUoHaVjx7n5xz8LwPRDckgFrDWhMhuSuJM", to: "TUznHJfHe6gdYY7gvWmf6bNZHuPHDZtowf", value: "1000000" },
        { hash: ID(2), from: A, to: USDT, value: "0", transfers: [{ asset: USDT, from: A, to: B, value: "2500000", decimals: 6 }] },
      ],
    });
    expect(fetched.bytes).toBe(1234);
    expect(tokenContracts(fetched)).toEqual(new Set([USDT]));
  });

  test.each([
    ["the block says REVERT", trigger(ID(1), "REVERT"), {}],
    ["the receipt says OUT_OF_ENERGY", trigger(ID(1)), { receipt: { result: "OUT_OF_ENERGY" } }],
    ["the info says FAILED", trigger(ID(1)), { result: "FAILED" }],
  ])("a contract call that did not run to its end moves nothing, its logs unread: %s", (_name, tx, over) => {
    const fetched = joined([tx], [info(ID(1), 5, over)]);
    expect(feedBlockOf(ingestedBlockOf("tron", fetched, () => 6), "tron").transactions).toEqual([{ hash: ID(1), from: A, to: USDT, value: "0" }]);
    expect(tokenContracts(fetched).size).toBe(0);
  });

  test("a call's TRX (call_value) moves only when it succeeded", () => {
    const paying = trigger(ID(1));
    paying.raw_data.contract[0].parameter.value.call_value = 7_000_000;
    const failing = trigger(ID(2), "REVERT");
    failing.raw_data.contract[0].parameter.value.call_value = 7_000_000;
    const fetched = joined([paying, failing], [info(ID(1), 5, { log: [] }), info(ID(2), 5, { log: [] })]);
    expect(fetched.transactions.map((t) => [t.value, t.executed])).toEqual([
      [7_000_000n, true],
      [0n, false],
    ]);
  });

  test("logs that are no TRC-20 Transfer are not transfers: TRC-721's four topics, other events, short data", () => {
    const b = book();
    const nft = { ...transferLog(A, B, 1n), topics: [...transferLog(A, B, 1n).topics, word("1")], data: "" };
    const other = { ...transferLog(A, B, 1n), topics: [word("c666"), word("1"), word("2")] };
    const short = { ...transferLog(A, B, 1n), data: "01" };
    expect(trc20Transfers(checkInfos(5, [info(ID(1), 5, { log: [nft, other, short, transferLog(B, A, 9n)] })], b)[0].logs, b)).toEqual([{ asset: USDT, from: B, to: A, value: 9n }]);
  });

  test("a node without a transaction's execution result is asked again, never half-believed", () => {
    expect(() => joined([trx(ID(1)), trx(ID(2))], [info(ID(1), 5)])).toThrow(
      `the node has no execution result (transaction info) for 1 of the 2 transactions of block 5, e.g. ${ID(2)} (a java-tron node keeps them with storage.transHistory.switch = "on")`,
    );
  });
});

describe("chain id", () => {
  test("is the last 4 bytes of the genesis block id, as java-tron's eth_chainId answers (mainnet 0x2b6653dc)", () => {
    const probe = tronChainProbe(null);
    expect(probe.idOf({ blockID: `${"0".repeat(56)}2b6653dc` })).toBe(728126428);
    expect(probe.idOf({})).toBeNull();
    expect(probe.idOf({ blockID: "<html>" })).toBeNull();
    expect(probe.options).toEqual({ path: "/wallet/getblock", headers: undefined });
    expect(tronChainProbe("k").options?.headers).toEqual({ "TRON-PRO-API-KEY": "k" });
  });
});
