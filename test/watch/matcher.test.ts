import { describe, expect, it } from "bun:test";
import type { TransactionInput } from "../../src/ingest/batch-schema.ts";
import { toIngestedBlock } from "../../src/ingest/block-from-feed.ts";
import { hitsOf, type WatchRef, walletDedupeKey } from "../../src/watch/matcher.ts";

const W = "0x1111111111111111111111111111111111111111";
const X = "0x2222222222222222222222222222222222222222";
const C = "0x3333333333333333333333333333333333333333";
const USDT = "0xdAC17F958D2ee523a2206206994597C13D831ec7";
const watchW: WatchRef = { id: "aw_w", accountId: "acc_a", address: W };
const lookup = (address: string) => (address === W ? [watchW] : undefined);

const hitsOfTx = (tx: TransactionInput) => hitsOf(toIngestedBlock({ network: "eth", height: 1, hash: "0xb", transactions: [tx] }, "evm").transactions[0], lookup);
const summary = (tx: TransactionInput) => hitsOfTx(tx).map((h) => [h.type, h.direction, h.movement, h.value.toString()]);

describe("hitsOf", () => {
  it("gives a payment for value sent to W", () => {
    expect(summary({ hash: "0xt", from: X, to: W, value: "1000" })).toEqual([["payment", "in", 0, "1000"]]);
  });

  it("gives a payout for value sent from W", () => {
    expect(summary({ hash: "0xt", from: W, to: X, value: "1000" })).toEqual([["payout", "out", 0, "1000"]]);
  });

  it("gives both an in and an out hit for a self-transfer", () => {
    expect(summary({ hash: "0xt", from: W, to: W, value: "5" })).toEqual([
      ["payment", "in", 0, "5"],
      ["payout", "out", 0, "5"],
    ]);
  });

  it("gives one other hit, out, when W sends a zero-value call with no movement", () => {
    expect(summary({ hash: "0xt", from: W, to: C, value: "0" })).toEqual([["other", "out", 0, "0"]]);
  });

  it("gives one other hit, in, when a transaction names W as recipient with no movement", () => {
    expect(summary({ hash: "0xt", from: X, to: W, value: "0" })).toEqual([["other", "in", 0, "0"]]);
  });

  it("gives one other hit for a zero-value self-call", () => {
    expect(summary({ hash: "0xt", from: W, to: W, value: "0" })).toEqual([["other", "out", 0, "0"]]);
  });

  it("gives an other hit for a zero-value transfer touching W", () => {
    expect(summary({ hash: "0xt", from: X, to: C, value: "0", transfers: [{ asset: USDT, from: W, to: X, value: "0" }] })).toEqual([
      ["other", "out", 1, "0"],
    ]);
  });

  it("matches a token transfer by its own from/to and skips the no-movement hit when a movement touched W", () => {
    const tx = { hash: "0xt", from: W, to: USDT, value: "0", transfers: [{ asset: USDT, from: X, to: W, value: "2500000", decimals: 6 }] };
    expect(summary(tx)).toEqual([["payment", "in", 1, "2500000"]]);
    expect(hitsOfTx(tx)[0]).toMatchObject({ asset: USDT.toLowerCase(), decimals: 6 });
  });

  it("gives the no-movement hit when W sent a transaction whose transfers moved other addresses' funds", () => {
    expect(summary({ hash: "0xt", from: W, to: C, value: "0", transfers: [{ asset: USDT, from: X, to: C, value: "9" }] })).toEqual([
      ["other", "out", 0, "0"],
    ]);
  });

  it("gives one hit per watch when several accounts watch the address", () => {
    const other: WatchRef = { id: "aw_other", accountId: "acc_b", address: W };
    const block = toIngestedBlock({ network: "eth", height: 1, hash: "0xb", transactions: [{ hash: "0xt", from: X, to: W, value: "1" }] }, "evm");
    const hits = hitsOf(block.transactions[0], (a) => (a === W ? [watchW, other] : undefined));
    expect(hits.map((h) => h.watch.id)).toEqual(["aw_w", "aw_other"]);
  });

  it("matches a mixed-case evm feed address against the lower-case watch", () => {
    expect(summary({ hash: "0xt", from: X, to: "0x1111111111111111111111111111111111111111".toUpperCase().replace("0X", "0x"), value: "1" })).toEqual([
      ["payment", "in", 0, "1"],
    ]);
  });

  it("never matches null or unwatched addresses", () => {
    expect(summary({ hash: "0xt", from: X, to: null, value: "1" })).toEqual([]);
  });

  it("keys each event by watch, transaction, movement and direction", () => {
    const [inHit, outHit] = hitsOfTx({ hash: "0xt", from: W, to: W, value: "5" });
    expect(walletDedupeKey(inHit, "0xt")).toBe("aw_w:0xt:0:in");
    expect(walletDedupeKey(outHit, "0xt")).toBe("aw_w:0xt:0:out");
  });
});
