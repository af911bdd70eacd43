import type { KeyStore } from "../auth/key-store.ts";
import type { RateLimiter } from "../auth/rate-limiter.ts";
import { type ClientIp, type KeyRecord, keyAllowsIp } from "../auth/verify.ts";
import type { Config, Family, NetworkConfig } from "../config/schema.ts";
import { fromFailure } from "../lib/failures.ts";
import type { Metrics } from "../lib/metrics.ts";
import { type Clock, instantOf } from "../lib/clock.ts";
import type { UpstreamPool } from "../upstream/pool.ts";
import { redactJson } from "../upstream/redaction.ts";
import { rpcAnswerCost, rpcCallCost } from "./costs.ts";
import type { AccountMeter, CreditMeter } from "./credit-meter.ts";
import {
  errorObject,
  forwardedCall,
  MAX_BATCH,
  type ParsedRpcBody,
  parseRpcBody,
  RPC_ERRORS,
  type RpcCall,
  type RpcEntry,
  MAX_ID_BODY_LENGTH,
  requestId,
  resultObject,
  TOO_DEEP_MESSAGE,
} from "./jsonrpc.ts";
import { type MethodPolicy, methodPolicyFor } from "./method-policy.ts";
import { findNetwork, unknownNetwork } from "../config/networks.ts";

/**
 * A /rpc request as the HTTP edge hands it over. The body is not read yet: `readBody(limit)` reads
 * it as text, or answers null past `limit` characters (having read no more than that), so nothing
 * of a stranger's body is read beyond what a refusal's id needs.
 */
export type RpcRequest = {
  network: string;
  apiKey: string | null;
  clientIp: ClientIp;
  readBody(limit?: number): Promise<string | null>;
  /** The message of the 413 for a body past the server's limit. */
  tooLarge: string;
};

/** What to answer: status, JSON body text ("" when there is nothing to answer: 204 or a status alone), and whether to add `Retry-After: 1`. */
export type RpcAnswer = { status: number; body: string; retryAfter: boolean };

export type RpcProxyDeps = {
  config: Config;
  pools: Map<string, UpstreamPool>;
  keys: KeyStore;
  meter: CreditMeter;
  limiter: RateLimiter;
  clock: Clock;
  metrics: Metrics;
};

type Outcome = "ok" | "node_error" | "refused" | "invalid" | "rate_limited" | "no_credits" | "upstream_error" | "too_large";

/**
 * One call of the request on its way through: answered locally (`local`), or forwarded and
 * answered by the node (`answer`). A notification (`silent`) goes the same way but is left out of
 * the answer, whatever became of it.
 */
type Slot = { entry: RpcEntry; call: RpcCall | null; silent: boolean; cost: number; outcome: Outcome; local: string | null; answer: unknown };

/** Answered from a per-network cache after the node's first answer: they never change for a chain. */
const CHAIN_CONSTANTS = new Set(["eth_chainId", "net_version"]);

/** Distinct method names /metrics labels before it calls the rest "other" (clients choose method names). */
const MAX_METHOD_LABELS = 256;

/**
 * The JSON-RPC endpoint's core (docs/rpc.md): authenticates the key, applies the network's method
 * policy, the plan's calls-per-second window and the credit check per call, forwards what passes
 * to the network's upstream pool in one request, and bills what the node answered with a result.
 */
export function createRpcProxy(deps: RpcProxyDeps) {
  const constants = new Map<string, string>();
  // One policy per family, built on first use with the operator's extra methods.
  const policies = new Map<Family, MethodPolicy | null>();
  const policyFor = (family: Family) => {
    if (!policies.has(family)) policies.set(family, methodPolicyFor(family, deps.config.rpc.extra_methods));
    return policies.get(family) ?? null;
  };
  const methodLabels = new Set<string>();
  const methodLabel = (method: string, outcome: Outcome) => {
    if (methodLabels.has(method)) return method;
    // Only a method some node answered with a result earns its own label.
    if (outcome === "ok" && methodLabels.size < MAX_METHOD_LABELS) {
      methodLabels.add(method);
      return method;
    }
    return "other";
  };

  // Metric series bound once per label set: rendering labels per call showed up in profiles.
  const callCounters = new Map<string, { inc(): void }>();
  const countCall = (network: string, method: string, outcome: Outcome) => {
    const k = `${network}\n${method}\n${outcome}`;
    let counter = callCounters.get(k);
    if (!counter) {
      counter = deps.metrics.counter("chainwatch_rpc_calls_total", { network, method, outcome });
      callCounters.set(k, counter);
    }
    counter.inc();
  };
  const latencies = new Map<string, { observe(v: number): void }>();
  const observeUpstream = (network: string, upstream: string, seconds: number) => {
    const k = `${network}\n${upstream}`;
    let h = latencies.get(k);
    if (!h) {
      h = deps.metrics.histogram("chainwatch_rpc_upstream_seconds", { network, upstream });
      latencies.set(k, h);
    }
    h.observe(seconds);
  };

  /** What the request's key may use (its network's pool and method policy), or the refusal of the whole request. */
  function gateOf(key: KeyRecord | null, req: RpcRequest): Gate {
    if (!key) return { refusal: RPC_ERRORS.INVALID_API_KEY };
    if (!keyAllowsIp(key, req.clientIp)) return { refusal: RPC_ERRORS.IP_NOT_ALLOWED };
    if (key.accountDisabled) return { refusal: RPC_ERRORS.ACCOUNT_DISABLED };
    const net = findNetwork(deps.config.networks, req.network);
    const pool = deps.pools.get(req.network);
    if (!net || !pool) return { refusal: RPC_ERRORS.UNKNOWN_NETWORK, message: unknownNetwork(req.network) };
    // A family /rpc has no method policy for (a tron network's rpc_urls serve java-tron's HTTP API, not JSON-RPC).
    const policy = policyFor(net.family);
    if (!policy) return { refusal: RPC_ERRORS.UNKNOWN_NETWORK, message: `JSON-RPC is not available for network ${req.network} (family ${net.family})` };
    return { key, net, pool, policy };
  }

  /**
   * Admits the calls the policy let through, in order: each counts toward the plan's window (the
   * first ones pass) and reserves its price. What a cached chain constant answers is billed at once;
   * the rest is returned, to be forwarded.
   */
  async function admit(network: string, accountId: string, account: AccountMeter, allowed: Slot[], bill: Bill): Promise<Slot[]> {
    const forward: Slot[] = [];
    if (allowed.length === 0) return forward;
    const acquired = deps.limiter.acquire(`rpc:${accountId}`, account.rpcRps, allowed.length, instantOf(deps.clock));
    const admitted = typeof acquired === "number" ? acquired : await acquired;
    for (let i = 0; i < allowed.length; i++) {
      const slot = allowed[i];
      const { id, method } = slot.call as RpcCall;
      if (i >= admitted) {
        setLocal(slot, "rate_limited", errorObject(id, RPC_ERRORS.RATE_LIMITED.code, RPC_ERRORS.RATE_LIMITED.message));
        continue;
      }
      slot.cost = rpcCallCost(deps.config, network, method);
      const reserved = deps.meter.reserve(account, slot.cost);
      if (!(typeof reserved === "boolean" ? reserved : await reserved)) {
        setLocal(slot, "no_credits", errorObject(id, RPC_ERRORS.INSUFFICIENT_CREDITS.code, RPC_ERRORS.INSUFFICIENT_CREDITS.message));
        continue;
      }
      bill.held += slot.cost;
      const cached = CHAIN_CONSTANTS.has(method) ? constants.get(`${network}\n${method}`) : undefined;
      if (cached !== undefined) {
        setLocal(slot, "ok", resultObject(id, cached));
        bill.charged += slot.cost;
        bill.calls += 1;
        continue;
      }
      forward.push(slot);
    }
    return forward;
  }

  /**
   * Forwards the admitted calls to the network's pool in one request and bills what the node
   * answered with a result; the node's bytes when they answer the whole request as they came.
   */
  async function send(req: RpcRequest, gate: Admitted, account: AccountMeter, single: boolean, entryCount: number, forward: Slot[], bill: Bill): Promise<Sent> {
    const { net, pool } = gate;
    // Each call rebuilt from what the policy judged, never the client's bytes (jsonrpc.ts).
    const body = single ? forwardedCall(forward[0].call as RpcCall) : `[${forward.map((s) => forwardedCall(s.call as RpcCall)).join(",")}]`;
    const answered = forward.filter((s) => !s.silent);
    const reply = await pool.send(body, { expectsAnswer: answered.length > 0 });
    if (!reply.ok) {
      const [outcome, message] =
        reply.code === "UPSTREAM_ANSWER_TOO_LARGE" ? (["too_large", tooLargeMessage(net.max_response_bytes)] as const) : (["upstream_error", RPC_ERRORS.UPSTREAM_UNAVAILABLE.message] as const);
      for (const s of forward) setLocal(s, outcome, errorObject(s.call?.id ?? null, RPC_ERRORS.UPSTREAM_UNAVAILABLE.code, message));
      return { passthrough: null, status: 200 };
    }
    observeUpstream(req.network, reply.upstream, reply.ms / 1000);
    // A notification the node took is carried out as far as anyone can tell: billed like a call.
    for (const s of forward) if (s.silent) s.outcome = "ok";
    if (answered.length > 0) matchAnswers(answered, reply.json, single);
    // The node's words may quote the network's secrets (a provider echoing the key of the
    // URL it was asked on): its errors reach the client redacted.
    const redacted = redactNodeErrors(answered, pool.redact);
    // A large answer costs more (docs/rpc.md); one the credits cannot pay is withheld.
    const extra = rpcAnswerCost(deps.config, reply.bytes);
    if (extra > 0 && forward.some((s) => s.outcome === "ok")) {
      if (deps.meter.reserve(account, extra)) {
        bill.held += extra;
        bill.charged += extra;
      } else {
        for (const s of forward) {
          if (s.outcome === "ok") setLocal(s, "no_credits", errorObject(s.call?.id ?? null, RPC_ERRORS.INSUFFICIENT_CREDITS.code, RPC_ERRORS.INSUFFICIENT_CREDITS.message));
        }
      }
    }
    for (const s of forward) {
      if (s.outcome === "ok") {
        bill.charged += s.cost;
        bill.calls += 1;
        const method = s.call?.method ?? "";
        if (CHAIN_CONSTANTS.has(method) && !s.silent) constants.set(`${req.network}\n${method}`, JSON.stringify((s.answer as { result: unknown }).result));
      } else if (s.outcome === "node_error") bill.calls += 1;
    }
    // The node's bytes as they came, when they answer the whole request (and it has no
    // notifications, which a node might answer anyway).
    const whole = !redacted && forward.length === entryCount && forward.every((s) => s.local === null && !s.silent);
    return { passthrough: whole ? reply.text : null, status: reply.status };
  }

  /**
   * One request, in stages kept apart so each compiles on its own: a stage the JIT has to compile
   * again (a key read from the database where it was cached) costs that stage, not the whole path.
   */
  async function handle(req: RpcRequest): Promise<RpcAnswer> {
    // A cached key and an account already read come back as values: awaited only when they are promises.
    const found = req.apiKey ? deps.keys.find(req.apiKey) : null;
    const gate = gateOf(found instanceof Promise ? await found : found, req);
    if ("refusal" in gate) return refuse(req, gate.refusal, gate.message);
    const text = await req.readBody();
    if (text === null) return { status: 413, body: errorObject(null, RPC_ERRORS.INVALID_REQUEST.code, req.tooLarge), retryAfter: false };
    const parsed = parseRpcBody(text);
    const invalid = requestProblem(parsed);
    if (invalid) return invalid;
    const single = parsed.kind === "single";
    const entries = single ? [parsed.entry] : (parsed as { entries: RpcEntry[] }).entries;

    const metered = deps.meter.account(gate.key.accountId);
    const account = metered instanceof Promise ? await metered : metered;
    // The account's credits unread (the database away): answered as the API answers it.
    if (!account.ok) throw fromFailure(account);
    const slots = slotsOf(entries, gate.policy);
    const bill: Bill = { held: 0, charged: 0, calls: 0 };
    let sent: Sent = NOTHING_SENT;
    try {
      const forward = await admit(req.network, gate.key.accountId, account, slots.filter(isAllowed), bill);
      if (forward.length > 0) sent = await send(req, gate, account, single, entries.length, forward, bill);
    } finally {
      deps.meter.settle(account, bill.held, bill.charged, bill.calls);
    }
    for (const s of slots) countCall(req.network, s.call ? methodLabel(s.call.method, s.outcome) : "invalid", s.outcome);
    return answerOf(slots, single, sent);
  }

  return { handle };
}

export type RpcProxy = ReturnType<typeof createRpcProxy>;

type RpcError = (typeof RPC_ERRORS)[keyof typeof RPC_ERRORS];

/** What a request may use once its key passed, or why it is refused whole. */
type Admitted = { key: KeyRecord; net: NetworkConfig; pool: UpstreamPool; policy: MethodPolicy };
type Gate = Admitted | { refusal: RpcError; message?: string };

/** The request's credits: held while its calls are in flight, charged for results, and the calls answered. */
type Bill = { held: number; charged: number; calls: number };

/** What the node's answer left for the reply: its bytes when they answer the whole request, and its status. */
type Sent = { passthrough: string | null; status: number };
const NOTHING_SENT: Sent = { passthrough: null, status: 200 };

/**
 * A request refused whole, before its body is read in full: one error object, however many calls
 * the body holds, its id read from a small body only (jsonrpc.ts, requestId).
 */
async function refuse(req: RpcRequest, e: RpcError, message: string = e.message): Promise<RpcAnswer> {
  const small = await req.readBody(MAX_ID_BODY_LENGTH);
  return { status: e.status, body: errorObject(small === null ? null : requestId(small), e.code, message), retryAfter: false };
}

/** A slot per entry: a malformed call or a method the policy refuses is answered locally at once. */
function slotsOf(entries: RpcEntry[], policy: MethodPolicy): Slot[] {
  const slots: Slot[] = [];
  for (const entry of entries) {
    const slot: Slot = { entry, call: entry.ok ? entry.call : null, silent: entry.ok && entry.call.notification, cost: 0, outcome: "ok", local: null, answer: undefined };
    slots.push(slot);
    if (!entry.ok) {
      setLocal(slot, "invalid", errorObject(entry.id, RPC_ERRORS.INVALID_REQUEST.code, entry.error));
      continue;
    }
    const verdict = policy(entry.call.method);
    if (!verdict.ok) setLocal(slot, "refused", errorObject(entry.call.id, RPC_ERRORS.METHOD_NOT_ALLOWED.code, verdict.error));
  }
  return slots;
}

/** Whether a slot is still to be admitted: nothing has answered it yet. */
function isAllowed(slot: Slot): boolean {
  return slot.local === null;
}

/** The reply: the node's bytes, or the answer built from its parts, with the status its outcomes call for. */
function answerOf(slots: Slot[], single: boolean, sent: Sent): RpcAnswer {
  const body = sent.passthrough ?? assemble(slots, single);
  const status = statusOf(slots, sent.status);
  // Notifications alone: nothing to answer. 204 when all went well, else the status says why.
  return { status: body === "" && status === 200 ? 204 : status, body, retryAfter: slots.some((s) => s.outcome === "rate_limited") };
}

/** The message of a call whose answer passed the network's `max_response_bytes`. */
function tooLargeMessage(limit: number): string {
  return `Upstream answer exceeds max_response_bytes (${limit} bytes).`;
}

/** The whole-request 400s, each one error object: a body that is not JSON or nests too deep, a single call that is not JSON-RPC 2.0, an empty or oversized batch. */
function requestProblem(parsed: ParsedRpcBody): RpcAnswer | null {
  const bad = (body: string, status = 400): RpcAnswer => ({ status, body, retryAfter: false });
  const { INVALID_REQUEST, PARSE_ERROR } = RPC_ERRORS;
  if (parsed.kind === "invalid-json") return bad(errorObject(null, PARSE_ERROR.code, PARSE_ERROR.message));
  if (parsed.kind === "too-deep") return bad(errorObject(null, INVALID_REQUEST.code, TOO_DEEP_MESSAGE));
  if (parsed.kind === "single") return parsed.entry.ok ? null : bad(errorObject(parsed.entry.id, INVALID_REQUEST.code, parsed.entry.error));
  if (parsed.entries.length === 0) return bad(errorObject(null, INVALID_REQUEST.code, "Invalid request: an empty batch."));
  if (parsed.entries.length > MAX_BATCH) {
    return bad(errorObject(null, INVALID_REQUEST.code, `Invalid request: a batch of ${parsed.entries.length} calls; at most ${MAX_BATCH}.`));
  }
  return null;
}

/**
 * The answer built from its parts: local answers as written, the node's answers re-serialized,
 * notifications left out; "" when nothing is left (never an empty array, as the specification asks).
 */
function assemble(slots: Slot[], single: boolean): string {
  const parts = slots.filter((s) => !s.silent).map((s) => s.local ?? JSON.stringify(s.answer));
  if (parts.length === 0) return "";
  return single ? parts[0] : `[${parts.join(",")}]`;
}

function setLocal(slot: Slot, outcome: Outcome, body: string): void {
  slot.outcome = outcome;
  slot.local = body;
}

/** Whether a node's answer object carries a result (billed) rather than an error (passed through, free). */
function judge(answer: unknown): Outcome {
  if (typeof answer !== "object" || answer === null) return "node_error";
  const a = answer as Record<string, unknown>;
  return "result" in a && (a.error === undefined || a.error === null) ? "ok" : "node_error";
}

/**
 * Pairs the node's answers with the forwarded calls. A batch answer is matched by id (the
 * specification lets a node answer in any order); a call the node left unanswered, or an answer
 * that is not a batch (a node refusing batches answers with one error object), becomes that
 * call's error, carrying the call's id.
 */
function matchAnswers(forward: Slot[], json: unknown, single: boolean): void {
  if (single) {
    forward[0].answer = json;
    forward[0].outcome = judge(json);
    return;
  }
  if (!Array.isArray(json)) {
    for (const s of forward) setLocal(s, "node_error", JSON.stringify({ ...(json as object), id: s.call?.id ?? null }));
    return;
  }
  const byId = new Map<string, unknown[]>();
  for (const a of json) {
    const k = JSON.stringify((a as { id?: unknown })?.id ?? null);
    const list = byId.get(k);
    if (list) list.push(a);
    else byId.set(k, [a]);
  }
  for (const s of forward) {
    const answer = byId.get(JSON.stringify(s.call?.id ?? null))?.shift();
    if (answer === undefined) {
      setLocal(s, "upstream_error", errorObject(s.call?.id ?? null, RPC_ERRORS.UPSTREAM_UNAVAILABLE.code, "Upstream gave no answer for this call."));
      continue;
    }
    s.answer = answer;
    s.outcome = judge(answer);
  }
}

/**
 * Applies `redact` to every string of the node's error answers (a batch refused whole was copied
 * to each call's local answer; a call's own error is its `answer`); whether any changed. Results
 * are chain data and pass as the node sent them.
 */
function redactNodeErrors(slots: Slot[], redact: (text: string) => string): boolean {
  let changed = false;
  for (const s of slots) {
    if (s.outcome !== "node_error") continue;
    // Judged on the parsed strings, not on JSON text: a secret may hold characters JSON escapes.
    const answer = s.local === null ? s.answer : JSON.parse(s.local);
    const clean = redactJson(answer, redact);
    if (clean === answer) continue;
    changed = true;
    if (s.local === null) s.answer = clean;
    else s.local = JSON.stringify(clean);
  }
  return changed;
}

/**
 * A call answers with the status of its outcome. A batch answers with the node's status when the
 * node or the cache answered any call, else with the status of what stopped its calls (upstream,
 * rate, credits; refused and malformed calls alone answer 200), so a client that only reads the
 * status still learns the reason.
 */
function statusOf(slots: Slot[], upstreamStatus: number): number {
  const has = (o: Outcome) => slots.some((s) => s.outcome === o);
  if (has("ok") || has("node_error")) return upstreamStatus;
  if (has("upstream_error") || has("too_large")) return RPC_ERRORS.UPSTREAM_UNAVAILABLE.status;
  if (has("rate_limited")) return RPC_ERRORS.RATE_LIMITED.status;
  if (has("no_credits")) return RPC_ERRORS.INSUFFICIENT_CREDITS.status;
  return 200;
}
