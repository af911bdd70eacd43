import { describe, expect, test } from "bun:test";
import { decodeEventLog, encodeAbiParameters, erc20Abi, pad, type RpcLog, type RpcTransactionReceipt, toEventSelector } from "viem";
import { erc20Transfers, reverted, tokenContracts } from "../../../src/follow/evm/block.ts";

// The pure half of the follower: which logs are ERC-20 transfers, which receipts reverted.

const TRANSFER = toEventSelector("Transfer(address,address,uint256)");
const TOKEN = "0xDAC17F958D2ee523a2206206994597C13D831ec7";
const A = "0x1111111111111111111111111111111111111111";
const B = "0x2222222222222222222222222222222222222222";

function log(over: Partial<RpcLog>): RpcLog {
  return {
    address: TOKEN,
    topics: [TRANSFER, pad(A), pad(B)],
    data: encodeAbiParameters([{ type: "uint256" }], [2_500_000n]),
    blockHash: "0x01",
    blockNumber: "0x1",
    logIndex: "0x0",
    transactionHash: "0x02",
    transactionIndex: "0x0",
    removed: false,
    ...over,
  } as RpcLog;
}

const receipt = (status: string | undefined, logs: RpcLog[]) => ({ status, logs, transactionHash: "0x02", blockHash: "0x01" }) as unknown as RpcTransactionReceipt;

describe("ERC-20 transfers from logs", () => {
  test("a Transfer log becomes a transfer of the log's contract, addresses lower-case", () => {
    expect(erc20Transfers([log({})])).toEqual([{ asset: TOKEN.toLowerCase(), from: A, to: B, value: 2_500_000n }]);
  });

  test.each([
    ["an ERC-721 Transfer (token id indexed, no data)", log({ topics: [TRANSFER, pad(A), pad(B), pad("0x05")], data: "0x" })],
    ["another event", log({ topics: [toEventSelector("Approval(address,address,uint256)"), pad(A), pad(B)] })],
    ["a Transfer whose data is not a uint256", log({ data: "0x01" })],
    ["a Transfer with no data", log({ data: "0x" })],
  ])("ignores %s", (_, l) => {
    expect(erc20Transfers([l])).toEqual([]);
  });

  test("reads what viem's strict decoding reads: the low 20 bytes of each address topic, the data's first word", () => {
    const l = log({ topics: [TRANSFER, pad("0xAB", { size: 32 }).replace(/^0x00/, "0xff") as `0x${string}`, pad(B)], data: `${encodeAbiParameters([{ type: "uint256" }], [7n])}${"00".repeat(32)}` });
    const { args } = decodeEventLog({ abi: erc20Abi, eventName: "Transfer", topics: l.topics as [`0x${string}`], data: l.data, strict: true }) as { args: { from: string; to: string; value: bigint } };
    expect(erc20Transfers([l])).toEqual([{ asset: TOKEN.toLowerCase(), from: args.from.toLowerCase(), to: args.to.toLowerCase(), value: args.value }]);
    expect(args.value).toBe(7n);
  });
});

describe("reverted transactions", () => {
  test.each([
    ["0x0", true],
    ["0x1", false],
    [undefined, false],
  ])("status %p → reverted %p (no status: a pre-Byzantium receipt, executed)", (status, expected) => {
    expect(reverted(receipt(status, []))).toBe(expected);
  });

  test("a reverted transaction's logs name no token", () => {
    expect(tokenContracts([receipt("0x0", [log({})]), receipt("0x1", [log({ address: A })])])).toEqual(new Set([A]));
  });
});
