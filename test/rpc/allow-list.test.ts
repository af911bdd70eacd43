import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Address, parseEther } from "viem";
import { EVM_ALLOWED_METHODS } from "../../src/rpc/method-policy.ts";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { call, postRpc } from "./support.ts";

// /rpc forwards an allow-list, so no API key can make the node sign, mint, mine or move funds.
// Every method below goes to chainwatch in front of a real anvil, with parameters that would move
// value to RECEIVER if the node ever saw them; none may reach it.
const RECEIVER = "0x00000000000000000000000000000000c0ffee00" as Address;
// Funded but not one of anvil's unlocked accounts: eth_sendUnsignedTransaction spends it anyway.
const STRANGER = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed" as Address;
const ONE_ETH = "0xde0b6b3a7640000";

/** Every method anvil 1.7.1 serves that is not on the allow-list (its EthRequest names). */
const ANVIL_REFUSED = [
  "anvil_addBalance", "anvil_autoImpersonateAccount", "anvil_dealERC20", "anvil_dropAllTransactions", "anvil_dropTransaction",
  "anvil_dumpState", "anvil_getAutomine", "anvil_getBlobByHash", "anvil_getBlobsByTransactionHash", "anvil_getGenesisTime",
  "anvil_getIntervalMining", "anvil_impersonateAccount", "anvil_impersonateSignature", "anvil_increaseTime", "anvil_loadState",
  "anvil_metadata", "anvil_mine", "anvil_mine_detailed", "anvil_nodeInfo", "anvil_removeBlockTimestampInterval",
  "anvil_removePoolTransactions", "anvil_reorg", "anvil_reset", "anvil_revert", "anvil_rollback", "anvil_setAutomine",
  "anvil_setBalance", "anvil_setBlockGasLimit", "anvil_setBlockTimestampInterval", "anvil_setChainId", "anvil_setCode",
  "anvil_setCoinbase", "anvil_setERC20Allowance", "anvil_setERC20Balance", "anvil_setFeeAmmLiquidity", "anvil_setFeeToken",
  "anvil_setIntervalMining", "anvil_setLoggingEnabled", "anvil_setMinGasPrice", "anvil_setNextBlockBaseFeePerGas",
  "anvil_setNextBlockTimestamp", "anvil_setNonce", "anvil_setRpcUrl", "anvil_setStorageAt", "anvil_setTime",
  "anvil_setValidatorFeeToken", "anvil_snapshot", "anvil_stopImpersonatingAccount", "debug_codeByHash", "debug_dbGet",
  "debug_getRawTransaction", "debug_traceBlockByHash", "debug_traceBlockByNumber", "debug_traceCall", "debug_traceTransaction",
  "erigon_getHeaderByNumber", "eth_accounts", "eth_coinbase", "eth_config", "eth_fillTransaction", "eth_getAccount",
  "eth_getAccountInfo", "eth_getFilterChanges", "eth_getFilterLogs", "eth_getRawTransactionByBlockHashAndIndex",
  "eth_getRawTransactionByBlockNumberAndIndex", "eth_getRawTransactionByHash", "eth_getStorageValues",
  "eth_getTransactionBySenderAndNonce", "eth_getWork", "eth_hashrate", "eth_networkId", "eth_newBlockFilter", "eth_newFilter",
  "eth_newPendingTransactionFilter", "eth_protocolVersion", "eth_requestAccounts", "eth_sendTransaction", "eth_sendTransactionSync",
  "eth_sendUnsignedTransaction", "eth_sign", "eth_signTransaction", "eth_signTypedData", "eth_signTypedData_v3",
  "eth_signTypedData_v4", "eth_simulateV1", "eth_submitHashrate", "eth_submitWork", "eth_subscribe", "eth_uninstallFilter",
  "eth_unsubscribe", "evm_increaseTime", "evm_mine", "evm_mine_detailed", "evm_revert", "evm_setAccountNonce", "evm_setAutomine",
  "evm_setBlockGasLimit", "evm_setIntervalMining", "evm_setNextBlockTimestamp", "evm_setTime", "evm_snapshot",
  "hardhat_addBalance", "hardhat_autoImpersonateAccount", "hardhat_dealERC20", "hardhat_dropAllTransactions",
  "hardhat_dropTransaction", "hardhat_dumpState", "hardhat_getAutomine", "hardhat_impersonateAccount", "hardhat_loadState",
  "hardhat_metadata", "hardhat_mine", "hardhat_reset", "hardhat_setBalance", "hardhat_setCode", "hardhat_setCoinbase",
  "hardhat_setLoggingEnabled", "hardhat_setMinGasPrice", "hardhat_setNextBlockBaseFeePerGas", "hardhat_setNonce",
  "hardhat_setStorageAt", "hardhat_stopImpersonatingAccount", "net_listening", "ots_getApiLevel", "ots_getBlockDetails",
  "ots_getBlockDetailsByHash", "ots_getBlockTransactions", "ots_getContractCreator", "ots_getInternalOperations",
  "ots_getTransactionBySenderAndNonce", "ots_getTransactionError", "ots_hasCode", "ots_searchTransactionsAfter",
  "ots_searchTransactionsBefore", "ots_traceTransaction", "personal_sign", "tenderly_addBalance", "tenderly_setBalance",
  "trace_block", "trace_filter", "trace_replayBlockTransactions", "trace_transaction", "txpool_content", "txpool_inspect",
  "txpool_status", "web3_sha3",
];

/** Served by other nodes or other anvil versions: the same classes, and whatever comes next. */
const ELSEWHERE = [
  "wallet_sendTransaction", "wallet_getCapabilities", "odyssey_sendTransaction", "personal_sendTransaction",
  "personal_unlockAccount", "personal_importRawKey", "personal_signTransaction", "personal_listAccounts", "miner_start",
  "miner_stop", "miner_setEtherbase", "admin_addPeer", "admin_peers", "admin_startHTTP", "debug_setHead",
  "engine_newPayloadV3", "eth_sendRawTransactionConditional", "eth_signRawTransaction", "eth_sendBundle",
];

/** Names that differ from an allowed or a dangerous one only in case, spacing or look-alike letters. */
const VARIANTS = [
  "ETH_SENDTRANSACTION",
  "Eth_sendTransaction",
  "eth_sendtransaction",
  " eth_sendTransaction",
  "eth_sendTransaction\n",
  "eth_sendTransaction\u200b", // zero-width space
  "eth_s\u0435ndTransaction", // Cyrillic е
  "\uff45th_sendTransaction", // fullwidth e
  "ETH_SENDUNSIGNEDTRANSACTION",
  "ETH_SENDRAWTRANSACTION",
  "eth_sendrawtransaction",
  "eth_sendRawTransact\u0131on", // dotless ı, which upper-cases to I
  "eth_getbalance",
  "eth_getBalanc\u0435", // Cyrillic е
  "eth_getBalance\u0000",
  "eth_call\u00a0", // no-break space
  "eth_ca\u217cl", // small roman numeral fifty, NFKC-folds to l
  "Method not allowed",
];

let anvil: Anvil;
let td: TestDaemon;
let extra: TestDaemon;
let c: TestClient;
let startBlock: bigint;
let nonces: number[];

beforeAll(async () => {
  anvil = await startAnvil();
  await anvil.mined(await anvil.sendEth(anvil.accounts[9], STRANGER, parseEther("5")));
  td = await startTestDaemon({ config: { networks: { eth: { family: "evm", decimals: 18, rpc_urls: [anvil.url] } } } });
  extra = await startTestDaemon({ config: { rpc: { extra_methods: ["anvil_nodeInfo", "txpool_status"] }, networks: { eth: { family: "evm", decimals: 18, rpc_urls: [anvil.url] } } } });
  c = await td.client({ credits: 1_000_000, rpcRps: 100_000 });
  startBlock = await anvil.public.getBlockNumber({ cacheTime: 0 });
  nonces = await Promise.all([STRANGER, ...anvil.accounts].map((address) => anvil.public.getTransactionCount({ address })));
});

afterAll(async () => {
  await td?.stop();
  await extra?.stop();
  await anvil?.stop();
});

/** Parameters under which each method would do its worst if a node carried it out. */
function harmfulParams(method: string): unknown[] {
  const dev = anvil.accounts[0];
  const tx = { from: dev, to: RECEIVER, value: ONE_ETH };
  const lower = method.toLowerCase();
  if (lower.includes("unsigned")) return [{ ...tx, from: STRANGER }];
  if (/sendtransaction|sendbundle|signtransaction|signrawtransaction/i.test(method)) return method.startsWith("personal_") ? [tx, ""] : [tx];
  if (/balance|deal/i.test(method)) return [RECEIVER, ONE_ETH];
  if (lower.includes("impersonate")) return [STRANGER];
  if (method === "personal_sign") return ["0xdeadbeef", dev];
  if (method.startsWith("eth_sign")) return [dev, "0xdeadbeef"];
  if (/mine|increaseTime|setTime|Timestamp/i.test(method)) return [1];
  return [];
}

const refusal = (method: string) => expect.stringMatching(new RegExp(`^Method not allowed: ${method.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}( \\(|$)`));

describe("/rpc refuses every method that is not on the allow-list", () => {
  test.each([...ANVIL_REFUSED, ...ELSEWHERE, ...VARIANTS])("%j answers 200 -32601 and never reaches the node", async (method) => {
    const res = await postRpc(`${td.url}/rpc/eth/${c.apiKey}`, call(1, method, harmfulParams(method)));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32601, message: refusal(method) } });
  });

  test("a batch of them, and the same as notifications, are refused call by call", async () => {
    const methods = [...ANVIL_REFUSED, ...ELSEWHERE, ...VARIANTS];
    for (let i = 0; i < methods.length; i += 100) {
      const slice = methods.slice(i, i + 100);
      const res = await postRpc(`${td.url}/rpc/eth/${c.apiKey}`, slice.map((m, j) => call(i + j, m, harmfulParams(m))));
      expect(res.status).toBe(200);
      expect(res.body).toEqual(slice.map((m, j) => ({ jsonrpc: "2.0", id: i + j, error: { code: -32601, message: refusal(m) } })));
      const silent = await fetch(`${td.url}/rpc/eth/${c.apiKey}`, {
        method: "POST",
        body: JSON.stringify(slice.map((m) => ({ jsonrpc: "2.0", method: m, params: harmfulParams(m) }))),
      });
      expect(silent.status).toBe(204);
    }
  });

  test("afterwards no value moved, no nonce changed and no block was mined", async () => {
    expect(await anvil.public.getBalance({ address: RECEIVER })).toBe(0n);
    expect(await anvil.public.getBalance({ address: STRANGER })).toBe(parseEther("5"));
    expect(await Promise.all([STRANGER, ...anvil.accounts].map((address) => anvil.public.getTransactionCount({ address })))).toEqual(nonces);
    expect(await anvil.public.getBlockNumber({ cacheTime: 0 })).toBe(startBlock);
    // Nothing was charged for a refused call.
    await td.daemon.deps.rpcMeter.flush();
    const row = await td.ctx.db.selectFrom("accounts").select("credits").where("id", "=", c.accountId).executeTakeFirstOrThrow();
    expect(Number(row.credits)).toBe(1_000_000);
  });
});

describe("the allow-list", () => {
  test.each([...EVM_ALLOWED_METHODS])("%s reaches the node", async (method) => {
    const res = await postRpc(`${td.url}/rpc/eth/${c.apiKey}`, call(2, method, []));
    expect(res.status).toBe(200);
    // The node's own answer: a result, or its complaint about the missing parameters.
    const message: string = res.body.error?.message ?? "";
    expect(message).not.toStartWith("Method not allowed");
    expect(res.body.id).toBe(2);
  });

  test("[rpc] extra_methods forwards the names an operator adds, exactly as written", async () => {
    const x = await extra.client({ credits: 100, rpcRps: 100 });
    const res = await postRpc(`${extra.url}/rpc/eth/${x.apiKey}`, [call(1, "anvil_nodeInfo"), call(2, "txpool_status"), call(3, "ANVIL_NODEINFO"), call(4, "anvil_mine")]);
    expect(res.status).toBe(200);
    expect(res.body[0]).toMatchObject({ id: 1, result: { currentBlockNumber: "0x1" } });
    expect(res.body[1]).toMatchObject({ id: 2, result: { pending: "0x0", queued: "0x0" } });
    expect(res.body.slice(2)).toEqual([
      { jsonrpc: "2.0", id: 3, error: { code: -32601, message: "Method not allowed: ANVIL_NODEINFO" } },
      { jsonrpc: "2.0", id: 4, error: { code: -32601, message: "Method not allowed: anvil_mine" } },
    ]);
  });
});
