import type { Family } from "../config/schema.ts";
import type { Explained, Result } from "../lib/error-codes.ts";

/** Whether /rpc forwards a method; a refusal's sentence is the message of its -32601 error. */
export type MethodVerdict = Result<object, Explained<"METHOD_NOT_ALLOWED">>;

/** A network's method policy: a verdict per method name. */
export type MethodPolicy = (method: string) => MethodVerdict;

/**
 * The methods /rpc forwards on an EVM network (docs/rpc.md): reads of the chain and of the
 * node's view of it, and `eth_sendRawTransaction[Sync]`, which carry a transaction the client signed.
 * Nothing that asks the node to sign (`eth_sendTransaction`, `eth_sign*`, `personal_*`,
 * `wallet_*`) or to change its own state (`anvil_*`, `evm_*`, `miner_*`, `admin_*`, filters) is
 * here, and nothing a node adds later is forwarded until an operator names it in
 * `[rpc] extra_methods`: a deny-list let through whatever it did not know, such as
 * `eth_sendUnsignedTransaction`, which moves any account's funds on anvil.
 */
export const EVM_ALLOWED_METHODS: readonly string[] = [
  // The chain and the node
  "eth_blockNumber",
  "eth_chainId",
  "net_version",
  "web3_clientVersion",
  "eth_syncing",
  // Accounts and contracts
  "eth_getBalance",
  "eth_getCode",
  "eth_getStorageAt",
  "eth_getTransactionCount",
  "eth_getProof",
  "eth_call",
  "eth_estimateGas",
  "eth_createAccessList",
  // Fees
  "eth_gasPrice",
  "eth_maxPriorityFeePerGas",
  "eth_feeHistory",
  "eth_blobBaseFee",
  // Blocks
  "eth_getBlockByNumber",
  "eth_getBlockByHash",
  "eth_getBlockReceipts",
  "eth_getBlockTransactionCountByHash",
  "eth_getBlockTransactionCountByNumber",
  "eth_getUncleCountByBlockHash",
  "eth_getUncleCountByBlockNumber",
  "eth_getUncleByBlockHashAndIndex",
  "eth_getUncleByBlockNumberAndIndex",
  // Transactions and logs
  "eth_getTransactionByHash",
  "eth_getTransactionByBlockHashAndIndex",
  "eth_getTransactionByBlockNumberAndIndex",
  "eth_getTransactionReceipt",
  "eth_getLogs",
  // Signed by the client: the node only relays them.
  "eth_sendRawTransaction",
  "eth_sendRawTransactionSync",
];

/** Why some refused methods are refused, and what to call instead: the usual questions. */
const HINTS: Record<string, string> = {
  eth_subscribe: "subscriptions need a WebSocket and /rpc is HTTP only; poll eth_getLogs or eth_blockNumber",
  eth_unsubscribe: "subscriptions need a WebSocket and /rpc is HTTP only",
  eth_newFilter: "filters live in one node's memory, which failover between rpc_urls loses; poll eth_getLogs",
  eth_newBlockFilter: "filters live in one node's memory, which failover between rpc_urls loses; poll eth_blockNumber",
  eth_newPendingTransactionFilter: "filters live in one node's memory, which failover between rpc_urls loses",
  eth_getFilterChanges: "filters are not served; poll eth_getLogs",
  eth_getFilterLogs: "filters are not served; poll eth_getLogs",
  eth_uninstallFilter: "filters are not served",
};

const OK: MethodVerdict = { ok: true };

/** The refusal of a method, naming it exactly as the client sent it. */
export function methodNotAllowed(method: string): MethodVerdict {
  const hint = Object.hasOwn(HINTS, method) ? ` (${HINTS[method]})` : "";
  return { ok: false, code: "METHOD_NOT_ALLOWED", error: `Method not allowed: ${method}${hint}` };
}

/**
 * The EVM policy: the built-in allow-list plus the operator's `[rpc] extra_methods`. A name
 * matches only as written (a Set of strings: no case folding, no Unicode normalisation), so
 * `ETH_SENDTRANSACTION` or a look-alike letter is another name and is refused.
 */
export function evmMethodPolicy(extraMethods: readonly string[] = []): MethodPolicy {
  const allowed = new Set([...EVM_ALLOWED_METHODS, ...extraMethods]);
  return (method) => (allowed.has(method) ? OK : methodNotAllowed(method));
}

/**
 * The method policy of a family, or null when /rpc does not serve that family yet: only EVM has
 * one, and forwarding another family's methods unfiltered (bitcoind's wallet RPC, say) is unsafe.
 */
export function methodPolicyFor(family: Family, extraMethods: readonly string[] = []): MethodPolicy | null {
  return rpcServesFamily(family) ? evmMethodPolicy(extraMethods) : null;
}

/** Whether /rpc forwards calls on a network of this family (given its `rpc_urls`): EVM only. */
export function rpcServesFamily(family: Family): boolean {
  return family === "evm";
}
