import { describe, expect, test } from "bun:test";
import { parseConfig } from "../../src/config/load.ts";
import { rpcAnswerCost, rpcCallCost } from "../../src/rpc/costs.ts";
import { MAX_JSON_DEPTH } from "../../src/lib/json-depth.ts";
import { forwardedCall, MAX_ID_BODY_LENGTH, parseRpcBody, type RpcCall, requestId } from "../../src/rpc/jsonrpc.ts";
import { EVM_ALLOWED_METHODS, evmMethodPolicy, methodPolicyFor } from "../../src/rpc/method-policy.ts";

function config(raw: Record<string, unknown> = {}) {
  const r = parseConfig({ networks: { eth: { family: "evm", decimals: 18, get_block_cost: 20 } }, ...raw }, "test");
  if (!r.ok) throw new Error(r.error);
  return r.config;
}

describe("EVM method policy: an allow-list", () => {
  const policy = evmMethodPolicy();
  test.each(["eth_blockNumber", "eth_getBalance", "eth_call", "eth_getLogs", "eth_sendRawTransaction", "eth_sendRawTransactionSync", "net_version", "web3_clientVersion", "eth_getProof"])(
    "%s passes",
    (m) => expect(policy(m)).toEqual({ ok: true }),
  );
  test.each([
    "trace_block",
    "eth_accounts",
    "eth_sendUnsignedTransaction",
    "eth_sendTransactionSync",
    "wallet_sendTransaction",
    "odyssey_sendTransaction",
    "eth_coinbase",
    "eth_getBalance2",
    "eth_getbalance",
    "ETH_GETBALANCE",
    " eth_getBalance",
    "eth_getBalance\u0000",
    "eth_get\u0392alance", // Greek capital beta
    "constructor",
    "__proto__",
  ])("%j is refused", (m) => expect(policy(m)).toEqual({ ok: false, code: "METHOD_NOT_ALLOWED", error: `Method not allowed: ${m}` }));
  test("the operator's extra methods pass exactly as written, beside the built-in ones", () => {
    const extended = evmMethodPolicy(["trace_block", "debug_traceTransaction"]);
    expect([extended("trace_block"), extended("debug_traceTransaction"), extended("eth_call")]).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    expect(extended("TRACE_BLOCK")).toEqual({ ok: false, code: "METHOD_NOT_ALLOWED", error: "Method not allowed: TRACE_BLOCK" });
  });
  test("nothing on the built-in list signs or asks the node to change its state", () => {
    const forbidden = /^(eth_send(?!Raw)|eth_sign|personal_|wallet_|odyssey_|anvil_|hardhat_|evm_|miner_|admin_|debug_|txpool_|engine_|eth_new|eth_uninstall|eth_accounts|eth_coinbase)/;
    expect(EVM_ALLOWED_METHODS.filter((m) => forbidden.test(m))).toEqual([]);
  });
  test("only evm has a policy", () => {
    expect(methodPolicyFor("evm")?.("eth_call")).toEqual({ ok: true });
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
    expect(rpcAnswerCost(config({ billing: { enabled: false } }), 50 * 1024 * 1024)).toBe(0);
  });
  test("an answer adds one credit per whole response_bytes_per_credit (1 MiB by default; 0 = none)", () => {
    const mib = 1024 * 1024;
    expect([rpcAnswerCost(config(), mib - 1), rpcAnswerCost(config(), mib), rpcAnswerCost(config(), 32 * mib)]).toEqual([0, 1, 32]);
    expect(rpcAnswerCost(config({ rpc: { response_bytes_per_credit: 1000 } }), 2500)).toBe(2);
    expect(rpcAnswerCost(config({ rpc: { response_bytes_per_credit: 0 } }), 32 * mib)).toBe(0);
  });
});

describe("JSON-RPC framing", () => {
  test("keeps each call's id, method and params", () => {
    expect(parseRpcBody('{"jsonrpc":"2.0","id":"a","method":"m","params":[1]}')).toEqual({
      kind: "single",
      entry: { ok: true, call: { id: "a", method: "m", notification: false, params: [1] } },
    });
  });
  test("a call without an id member is a notification; id null is a call", () => {
    const one = (text: string) => {
      const p = parseRpcBody(text);
      return p.kind === "single" && p.entry.ok ? p.entry.call.notification : "not a call";
    };
    expect([one('{"jsonrpc":"2.0","method":"m"}'), one('{"jsonrpc":"2.0","id":null,"method":"m"}'), one('{"jsonrpc":"2.0","id":0,"method":"m"}')]).toEqual([true, false, false]);
  });
  test("a whole-request error carries a single call's id, and null for a batch or a body that is not a call", () => {
    expect(requestId('  {"jsonrpc":"2.0","id":"a","method":"m"}')).toBe("a");
    expect(requestId('{"id":7}')).toBe(7);
    expect(requestId('[{"jsonrpc":"2.0","id":1,"method":"m"}]')).toBeNull();
    expect(requestId("nope")).toBeNull();
    expect(requestId('{"id":{"x":1}}')).toBeNull();
    expect(requestId("")).toBeNull();
  });

  test("a refusal reads the id of a body of at most 4096 characters nesting at most 64 deep, else answers id null", () => {
    const padded = (length: number) => {
      const head = '{"jsonrpc":"2.0","id":7,"method":"eth_call","params":["';
      const tail = '"]}';
      return head + "a".repeat(length - head.length - tail.length) + tail;
    };
    expect(MAX_ID_BODY_LENGTH).toBe(4096);
    expect(requestId(padded(4096))).toBe(7);
    expect(requestId(padded(4097))).toBeNull();
    const nested = (levels: number) => `{"jsonrpc":"2.0","id":7,"method":"m","params":${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}`;
    expect(requestId(nested(MAX_JSON_DEPTH))).toBe(7);
    expect(requestId(nested(MAX_JSON_DEPTH + 1))).toBeNull();
  });

  test("a body nesting deeper than 64 levels is refused before it is parsed; 64 parse", () => {
    const nested = (levels: number) => `{"jsonrpc":"2.0","id":1,"method":"m","params":${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}`;
    expect(parseRpcBody(nested(MAX_JSON_DEPTH)).kind).toBe("single");
    expect(parseRpcBody(nested(MAX_JSON_DEPTH + 1))).toEqual({ kind: "too-deep" });
    // Brackets inside strings are text, not nesting.
    expect(parseRpcBody(`{"jsonrpc":"2.0","id":1,"method":"m","params":["${"[".repeat(1000)}"]}`).kind).toBe("single");
  });
});

describe("a call carries jsonrpc, id, method and params, and nothing else", () => {
  const entry = (text: string) => {
    const p = parseRpcBody(text);
    if (p.kind !== "single") throw new Error(p.kind);
    return p.entry;
  };
  test.each([
    ['"METHOD":"eth_sendTransaction"', "METHOD"],
    ['"Method":"debug_setHead"', "Method"],
    ['"mEthod":"eth_sign"', "mEthod"],
    ['"method ":"eth_sign"', "method "],
    // Go folds ſ (U+017F) to s: a Go node reads this member as params.
    ['"param\u017f":["eth_sign"]', "paramſ"],
    ['"__proto__":{"method":"eth_sendTransaction"}', "__proto__"],
    ['"constructor":1', "constructor"],
    ['"extra":null', "extra"],
  ])("an extra member %s is refused -32600, naming it, with the call's id", (member, name) => {
    expect(entry(`{"jsonrpc":"2.0","id":9,"method":"eth_blockNumber","params":[],${member}}`)).toEqual({
      ok: false,
      code: "INVALID_INPUT",
      error: `Invalid request: a call has no member other than jsonrpc, id, method and params (${JSON.stringify(name)}).`,
      id: 9,
    });
  });

  test("a long member name is quoted cut short", () => {
    const e = entry(`{"jsonrpc":"2.0","id":1,"method":"m","${"x".repeat(5000)}":1}`);
    expect(e.ok ? "" : e.error).toBe(`Invalid request: a call has no member other than jsonrpc, id, method and params ("${"x".repeat(39)}…").`);
  });

  test("what is forwarded is a new object of the four members: one method, the last of duplicates, as JSON.parse read it", () => {
    const forwarded = (text: string) => {
      const e = entry(text);
      if (!e.ok) throw new Error(e.error);
      return forwardedCall(e.call);
    };
    expect(forwarded('{"method":"eth_sendTransaction","params":[1],"id":"x","jsonrpc":"2.0","method":"eth_blockNumber"}')).toBe(
      '{"jsonrpc":"2.0","id":"x","method":"eth_blockNumber","params":[1]}',
    );
    expect(forwarded('{"jsonrpc":"2.0","id":1,"m\u0065thod":"eth_chainId"}')).toBe('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}');
    // A notification stays one: no id member appears.
    expect(forwarded('{"jsonrpc":"2.0","method":"eth_chainId","params":{}}')).toBe('{"jsonrpc":"2.0","method":"eth_chainId","params":{}}');
    expect(forwardedCall({ id: null, method: "m", notification: false, params: undefined } satisfies RpcCall)).toBe('{"jsonrpc":"2.0","id":null,"method":"m"}');
  });
});
