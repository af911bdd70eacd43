import { describe, expect, test } from "bun:test";
import { parseConfig } from "../../src/config/load.ts";
import { rpcCallCost } from "../../src/rpc/costs.ts";
import { parseRpcBody, wholeRequestError } from "../../src/rpc/jsonrpc.ts";
import { evmMethodPolicy, methodPolicyFor } from "../../src/rpc/method-policy.ts";

function config(raw: Record<string, unknown> = {}) {
  const r = parseConfig({ networks: { eth: { family: "evm", decimals: 18, get_block_cost: 20 } }, ...raw }, "test");
  if (!r.ok) throw new Error(r.error);
  return r.config;
}

describe("EVM method policy", () => {
  test.each(["eth_blockNumber", "eth_getBalance", "eth_call", "eth_getLogs", "eth_sendRawTransaction", "eth_newFilter", "net_version", "web3_clientVersion", "trace_block"])(
    "%s passes",
    (m) => expect(evmMethodPolicy(m)).toEqual({ ok: true }),
  );
  test.each(["admin_addPeer", "debug_setHead", "personal_unlockAccount", "txpool_inspect", "anvil_impersonateAccount", "hardhat_setBalance", "evm_increaseTime", "miner_setEtherbase", "engine_newPayloadV3", "eth_sendTransaction", "eth_signTypedData_v4"])(
    "%s is refused",
    (m) => expect(evmMethodPolicy(m)).toEqual({ ok: false, message: `Method not allowed: ${m}` }),
  );
  test("only evm has a policy", () => {
    expect(methodPolicyFor("evm")).toBe(evmMethodPolicy);
    for (const f of ["btc", "tron", "solana", "generic"] as const) expect(methodPolicyFor(f)).toBeNull();
  });
});

describe("call costs", () => {
  test("defaults: 1, block reads the network's get_block_cost, eth_getLogs 10", () => {
    const c = config();
    expect([rpcCallCost(c, "eth", "eth_call"), rpcCallCost(c, "eth", "eth_getBlockByHash"), rpcCallCost(c, "eth", "eth_getBlockByNumber"), rpcCallCost(c, "eth", "eth_getLogs")]).toEqual([1, 20, 20, 10]);
  });
  test("[rpc.costs] overrides every rule, and a table without `default` still costs 1 a call", () => {
    const c = config({ rpc: { costs: { eth_getBlockByNumber: 2, eth_call: 0 } } });
    expect([rpcCallCost(c, "eth", "eth_getBlockByNumber"), rpcCallCost(c, "eth", "eth_getBlockByHash"), rpcCallCost(c, "eth", "eth_call"), rpcCallCost(c, "eth", "eth_chainId"), rpcCallCost(c, "eth", "eth_getLogs")]).toEqual([2, 20, 0, 1, 10]);
    expect(rpcCallCost(config({ rpc: { costs: { default: 3 } } }), "eth", "eth_chainId")).toBe(3);
  });
  test("a method named like an Object.prototype member costs the default", () => {
    expect(rpcCallCost(config(), "eth", "constructor")).toBe(1);
    expect(rpcCallCost(config(), "eth", "__proto__")).toBe(1);
  });
  test("billing off: every call is free", () => {
    expect(rpcCallCost(config({ billing: { enabled: false } }), "eth", "eth_getLogs")).toBe(0);
  });
});

describe("JSON-RPC framing", () => {
  test("keeps each call's id and the object as sent", () => {
    expect(parseRpcBody('{"jsonrpc":"2.0","id":"a","method":"m","params":[1]}')).toEqual({
      kind: "single",
      entry: { ok: true, call: { id: "a", method: "m", raw: { jsonrpc: "2.0", id: "a", method: "m", params: [1] } } },
    });
  });
  test("a whole-request error takes the shape of the request", () => {
    expect(wholeRequestError(parseRpcBody("nope"), -1, "x")).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"x"}}');
    expect(JSON.parse(wholeRequestError(parseRpcBody('[{"id":1},{"id":"b","jsonrpc":"2.0","method":"m"}]'), -1, "x"))).toEqual([
      { jsonrpc: "2.0", id: 1, error: { code: -1, message: "x" } },
      { jsonrpc: "2.0", id: "b", error: { code: -1, message: "x" } },
    ]);
  });
});
