import { describe, expect, test } from "bun:test";
import { encodeAbiParameters, pad, type RpcLog, toEventSelector } from "viem";
import { nftTransfers } from "../../../src/follow/evm/nft-logs.ts";

// Which logs are NFT moves, and what each moves: ERC-721 by its topic count, ERC-1155 one per id.

const TRANSFER = toEventSelector("Transfer(address,address,uint256)");
const SINGLE = toEventSelector("TransferSingle(address,address,address,uint256,uint256)");
const BATCH = toEventSelector("TransferBatch(address,address,address,uint256[],uint256[])");
const NFT = "0x00000000000000000000000000000000000Fe721";
const OPERATOR = "0x9999999999999999999999999999999999999999";
const A = "0x1111111111111111111111111111111111111111";
const B = "0x2222222222222222222222222222222222222222";
const MAX = 2n ** 256n - 1n;

const log = (topics: `0x${string}`[], data: `0x${string}`): RpcLog => ({ address: NFT, topics, data }) as unknown as RpcLog;
const word = (n: bigint) => pad(`0x${n.toString(16)}`);
const ids = (ids: bigint[], values: bigint[]) => encodeAbiParameters([{ type: "uint256[]" }, { type: "uint256[]" }], [ids, values]);

describe("NFT moves from logs", () => {
  test("an ERC-721 Transfer (the token id as the fourth topic) moves one token of that id", () => {
    expect(nftTransfers([log([TRANSFER, pad(A), pad(B), word(MAX)], "0x")])).toEqual([
      { asset: NFT.toLowerCase(), from: A, to: B, value: 1n, nft: { standard: "erc721", tokenId: MAX } },
    ]);
  });

  test("an ERC-1155 TransferSingle moves its value of its id, from and to (not the operator)", () => {
    const data = encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], [7n, 40n]);
    expect(nftTransfers([log([SINGLE, pad(OPERATOR), pad(A), pad(B)], data)])).toEqual([
      { asset: NFT.toLowerCase(), from: A, to: B, value: 40n, nft: { standard: "erc1155", tokenId: 7n } },
    ]);
  });

  test("an ERC-1155 TransferBatch is one move per id, in its order, a zero value included", () => {
    const moves = nftTransfers([log([BATCH, pad(OPERATOR), pad(A), pad(B)], ids([3n, 1n, 9n], [5n, 0n, 1n]))]);
    expect(moves.map((m) => [m.nft.tokenId, m.value])).toEqual([
      [3n, 5n],
      [1n, 0n],
      [9n, 1n],
    ]);
  });

  test("keeps log order across standards", () => {
    const single = encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], [2n, 2n]);
    const moves = nftTransfers([log([SINGLE, pad(OPERATOR), pad(A), pad(B)], single), log([TRANSFER, pad(B), pad(A), word(1n)], "0x")]);
    expect(moves.map((m) => m.nft)).toEqual([
      { standard: "erc1155", tokenId: 2n },
      { standard: "erc721", tokenId: 1n },
    ]);
  });

  test.each([
    ["an ERC-20 Transfer (three topics)", log([TRANSFER, pad(A), pad(B)], word(5n))],
    ["a four-topic Transfer with data", log([TRANSFER, pad(A), pad(B), word(1n)], word(1n))],
    ["an address topic with bits above its 20 bytes", log([TRANSFER, `0x01${pad(A).slice(4)}`, pad(B), word(1n)], "0x")],
    ["a TransferSingle with one word of data", log([SINGLE, pad(OPERATOR), pad(A), pad(B)], word(1n))],
    ["a TransferBatch whose lists differ in length", log([BATCH, pad(OPERATOR), pad(A), pad(B)], ids([1n, 2n], [1n]))],
    ["a TransferBatch whose data does not decode", log([BATCH, pad(OPERATOR), pad(A), pad(B)], "0x1234")],
    ["a TransferSingle with three topics", log([SINGLE, pad(A), pad(B)], encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], [1n, 1n]))],
  ])("ignores %s", (_, l) => {
    expect(nftTransfers([l])).toEqual([]);
  });
});
