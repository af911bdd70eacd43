import { numberToHex } from "viem";
import { MalformedUpstreamData } from "../core/upstream-data.ts";

// Pure: a node's block trace → the native value moved inside each transaction's execution
// (docs/chains.md, "Internal transfers"). No I/O.

/** How a network's blocks are traced: not at all, geth's callTracer, or OpenEthereum/Erigon's trace_block. */
export type TraceMode = "off" | "debug" | "parity";

/** One native move by a call inside a transaction: addresses lower-case, value > 0. */
export type InternalMove = { from: string; to: string; value: bigint };

/** The JSON-RPC method each mode asks a node for. */
export const TRACE_METHODS: Record<Exclude<TraceMode, "off">, string> = { debug: "debug_traceBlockByNumber", parity: "trace_block" };

/**
 * The deepest nesting a trace answer may have. The EVM's call depth is at most 1024, and each
 * frame of callTracer's tree opens two levels (the frame, its `calls`), with a few around them;
 * trace_block's list is flat. Far above any other answer, and still bounded.
 */
export const TRACE_MAX_DEPTH = 2 * 1025 + 8;

/** The call that traces the block at a height. */
export function traceCall(mode: Exclude<TraceMode, "off">, height: number): { method: string; params: unknown[] } {
  const tag = numberToHex(height);
  return mode === "debug" ? { method: TRACE_METHODS.debug, params: [tag, { tracer: "callTracer" }] } : { method: TRACE_METHODS.parity, params: [tag] };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const HEX = /^0x[0-9a-fA-F]{1,64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function malformed(height: number, what: string): never {
  throw new MalformedUpstreamData(`block ${height}: the node's trace ${what}`);
}

function quantity(height: number, v: unknown): bigint {
  if (v === undefined || v === null) return 0n;
  if (typeof v !== "string" || !HEX.test(v)) malformed(height, "holds a value that is not a hex quantity");
  return BigInt(v);
}

function address(height: number, v: unknown): string {
  if (typeof v !== "string" || !ADDRESS.test(v)) malformed(height, "holds an address that is not 20 bytes of hex");
  return v.toLowerCase();
}

// A CALL moves its value to `to`, a CREATE/CREATE2 to the contract it makes. DELEGATECALL and
// CALLCODE run other code on the caller's own balance and STATICCALL cannot carry value: none of
// them moves anything. A self-destruct's balance is not a call's value and is not read.
const MOVING_CALLS = new Set(["CALL", "CREATE", "CREATE2"]);
const MOVING_PARITY = new Set(["call", "create"]);

/**
 * The internal moves of each transaction, by hash (lower-case), from `debug_traceBlockByNumber`
 * with callTracer: one frame a transaction, in block order. The outer frame is the transaction
 * itself (its value is movement 0 already) and is skipped; a frame with an `error` reverted, so
 * neither it nor anything under it moved value. Depth-first, parents before children: the order
 * the calls ran in.
 */
export function debugInternalMoves(height: number, txHashes: readonly string[], answer: unknown): Map<string, InternalMove[]> {
  if (!Array.isArray(answer) || answer.length !== txHashes.length) malformed(height, "does not have one result per transaction");
  const out = new Map<string, InternalMove[]>();
  answer.forEach((item, i) => {
    const hash = txHashes[i] as string;
    if (!isObject(item) || !isObject(item.result)) malformed(height, "has an entry without a call frame");
    if (item.txHash !== undefined && (typeof item.txHash !== "string" || item.txHash.toLowerCase() !== hash)) malformed(height, "names another transaction than the block's");
    const moves: InternalMove[] = [];
    const walk = (frame: Record<string, unknown>, outer: boolean, depth: number) => {
      if (depth > 1100) malformed(height, "nests calls deeper than the EVM allows");
      if (frame.error !== undefined && frame.error !== null) return;
      if (!outer && typeof frame.type === "string" && MOVING_CALLS.has(frame.type.toUpperCase())) {
        const value = quantity(height, frame.value);
        if (value > 0n) moves.push({ from: address(height, frame.from), to: address(height, frame.to), value });
      }
      if (frame.calls === undefined || frame.calls === null) return;
      if (!Array.isArray(frame.calls)) malformed(height, "has calls that are not a list");
      for (const c of frame.calls) {
        if (!isObject(c)) malformed(height, "has a call that is not an object");
        walk(c, false, depth + 1);
      }
    };
    walk(item.result, true, 0);
    if (moves.length > 0) out.set(hash, moves);
  });
  return out;
}

/**
 * The internal moves of each transaction, by hash, from `trace_block`: a flat list of every call,
 * each with its `traceAddress` (its path in the call tree; empty for the transaction itself, which
 * is skipped). A trace with an `error` reverted, and so did everything under it: a trace whose
 * path starts with a failed one's is dropped too. Rewards (no transaction) are not moves of one.
 */
export function parityInternalMoves(height: number, blockHash: string, answer: unknown): Map<string, InternalMove[]> {
  if (!Array.isArray(answer)) malformed(height, "is not a list");
  const out = new Map<string, InternalMove[]>();
  const failed = new Map<string, string[]>();
  for (const t of answer) {
    if (!isObject(t) || !isObject(t.action) || !Array.isArray(t.traceAddress)) malformed(height, "has an entry without an action and a trace address");
    if (t.transactionHash === null || t.transactionHash === undefined) continue;
    if (typeof t.transactionHash !== "string") malformed(height, "has an entry whose transaction hash is not a string");
    if (typeof t.blockHash === "string" && t.blockHash.toLowerCase() !== blockHash) malformed(height, "is of another block");
    const hash = t.transactionHash.toLowerCase();
    const path = t.traceAddress.map(String).join(".");
    const failedHere = failed.get(hash) ?? [];
    if (failedHere.some((f) => f === "" || path === f || path.startsWith(`${f}.`))) continue;
    if (t.error !== undefined && t.error !== null) {
      failedHere.push(path);
      failed.set(hash, failedHere);
      continue;
    }
    if (path === "" || typeof t.type !== "string" || !MOVING_PARITY.has(t.type)) continue;
    if (t.type === "call" && t.action.callType !== "call") continue;
    const value = quantity(height, t.action.value);
    if (value === 0n) continue;
    const to = t.type === "create" ? (isObject(t.result) ? t.result.address : undefined) : t.action.to;
    const moves = out.get(hash) ?? [];
    moves.push({ from: address(height, t.action.from), to: address(height, to), value });
    out.set(hash, moves);
  }
  return out;
}

/**
 * Whether a node answers the mode's trace method: null when it does, else the start-up error
 * naming the key, the method and the node's own refusal. It traces the node's latest block (a
 * node may refuse to trace its genesis). `call` throws the node's error answer with its code
 * (client.ts RpcError); no upstream answering at all is no verdict (null), as the follower's
 * reads will say.
 */
export async function traceSupport(
  network: string,
  mode: Exclude<TraceMode, "off">,
  call: (method: string, params: unknown[]) => Promise<unknown>,
): Promise<string | null> {
  const method = TRACE_METHODS[mode];
  const params = mode === "debug" ? ["latest", { tracer: "callTracer" }] : ["latest"];
  try {
    await call(method, params);
    return null;
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== "number") return null;
    return `networks.${network}.traces = "${mode}" needs ${method}, which the node refuses: ${(e as Error).message}`;
  }
}
