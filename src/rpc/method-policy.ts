import type { Family } from "../config/schema.ts";

/** Whether /rpc forwards a method; a refusal carries the message of its -32601 error. */
export type MethodVerdict = { ok: true } | { ok: false; message: string };

/** Namespaces that administer, debug or drive the node itself (docs/reference.md §9), and the engine API of a consensus client. */
const EVM_REFUSED_PREFIXES = ["admin_", "debug_", "personal_", "txpool_", "anvil_", "hardhat_", "evm_", "miner_", "engine_"];

/**
 * Methods that act with the node's own keys: on a node with unlocked accounts (anvil, a dev geth)
 * they would let any API key spend the operator's funds. Wallets sign locally and send
 * `eth_sendRawTransaction`, which passes.
 */
const EVM_REFUSED_METHODS = new Set([
  "eth_sendTransaction",
  "eth_sign",
  "eth_signTransaction",
  "eth_signTypedData",
  "eth_signTypedData_v1",
  "eth_signTypedData_v3",
  "eth_signTypedData_v4",
]);

const OK: MethodVerdict = { ok: true };

/** The EVM policy: reads, filters and `eth_sendRawTransaction` pass; node administration, node-key signing and subscriptions do not. */
export function evmMethodPolicy(method: string): MethodVerdict {
  if (method === "eth_subscribe" || method === "eth_unsubscribe") {
    return {
      ok: false,
      message: `Method not allowed: ${method} (subscriptions need a WebSocket and /rpc is HTTP only; poll with eth_newFilter and eth_getFilterChanges, or eth_getLogs)`,
    };
  }
  if (EVM_REFUSED_METHODS.has(method) || EVM_REFUSED_PREFIXES.some((p) => method.startsWith(p))) {
    return { ok: false, message: `Method not allowed: ${method}` };
  }
  return OK;
}

/**
 * The method policy of a family, or null when /rpc does not serve that family yet: only EVM has
 * one, and forwarding another family's methods unfiltered (bitcoind's wallet RPC, say) is unsafe.
 */
export function methodPolicyFor(family: Family): ((method: string) => MethodVerdict) | null {
  return family === "evm" ? evmMethodPolicy : null;
}
