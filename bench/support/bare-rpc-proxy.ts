// A second baseline for `bench:rpc`: the least an HTTP JSON-RPC proxy can do — read the body,
// POST it to the node with Bun's fetch (keep-alive), answer with the node's bytes. No auth, no
// metering, no failover: what one extra HTTP hop costs on this machine.
// `bun bench/support/bare-rpc-proxy.ts <port> <upstream url> [elysia | contract <keys.json>]`:
// - `elysia`: the same proxy as one Elysia route (`POST /rpc/:network/:key`, body unparsed,
//   configured as the daemon configures Elysia) instead of a bare Bun.serve: what the framework's
//   request pipeline adds to a call. chainwatch answers `POST /rpc/…` from Bun's own routes
//   (src/http/native-routes.ts), so the bare Bun.serve proxy is its baseline; this one shows what
//   that choice saves.
// - `contract`: the bare Bun.serve proxy plus the least chainwatch's /rpc contract asks of every
//   call, written plainly (contractProxy below): what the contract itself costs a call.
import { Database } from "bun:sqlite";
import { Elysia } from "elysia";
import { readFileSync } from "node:fs";
import { jsonNestsDeeperThan } from "../../src/lib/json-depth.ts";

if (import.meta.main) {
  const port = Number(process.argv[2]);
  const upstream = String(process.argv[3]);
  const forward = minimalProxy(upstream);
  if (process.argv[4] === "contract") {
    Bun.serve({ hostname: "127.0.0.1", port, fetch: contractProxy(upstream, JSON.parse(readFileSync(String(process.argv[5]), "utf8")) as string[]) });
  } else if (process.argv[4] === "elysia") {
    new Elysia({ strictPath: true, systemRouter: false })
      .post("/rpc/:network/:key", ({ request }) => forward(request), { parse: "none" })
      .listen({ hostname: "127.0.0.1", port, development: false, reusePort: false });
  } else {
    Bun.serve({ hostname: "127.0.0.1", port, fetch: forward });
  }
}

/** The minimal proxy: the body read and POSTed to the node, the node's bytes answered. */
export function minimalProxy(upstream: string, post: typeof fetch = fetch): (req: Request) => Promise<Response> {
  return async (req) => {
    const res = await post(upstream, { method: "POST", headers: { "Content-Type": "application/json" }, body: await req.text() });
    return new Response(await res.text(), { status: res.status, headers: { "content-type": "application/json" } });
  };
}

/** The read methods of the allow-list (the bench calls two of them). */
const ALLOWED = new Set(["eth_blockNumber", "eth_chainId", "net_version", "eth_getBalance", "eth_call", "eth_getBlockByNumber", "eth_getBlockByHash", "eth_getLogs", "eth_getTransactionReceipt", "eth_sendRawTransaction"]);
const COSTS: Record<string, number> = { eth_getBlockByNumber: 20, eth_getBlockByHash: 20, eth_getLogs: 10 };
const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
const TIMEOUT_MS = 10_000;
const CALL_MEMBERS = new Set(["jsonrpc", "id", "method", "params"]);

/**
 * The /rpc contract's per-call work over a single call, in one function: the key from the path
 * (a Map), the network, the body bounded in depth and parsed, a JSON-RPC 2.0 call with no other
 * member, the method on the allow-list, the account's calls in its 1000 ms window, its credits
 * reserved; the call forwarded as a newly built object under the upstream timeout; the answer
 * capped, bounded in depth and parsed, since a node's 2xx answer that is not JSON (an error page)
 * is a failure of that node, never a client's answer; a result charged and counted, the node's own
 * error passed through unbilled; the node's bytes answered. Charges reach a SQLite file once a
 * second, as a metered pool would keep them. Refusals answer a plain status: the bench sends none.
 */
export function contractProxy(upstream: string, keys: string[], post: typeof fetch = fetch): (req: Request) => Promise<Response> {
  type Account = { credits: number; spent: number; calls: number; windowStart: number; inWindow: number };
  const accounts = new Map<string, Account>(keys.map((k) => [k, { credits: 1e15, spent: 0, calls: 0, windowStart: 0, inWindow: 0 }]));
  const db = new Database(":memory:");
  db.run("CREATE TABLE usage (key TEXT PRIMARY KEY, spent INTEGER NOT NULL, calls INTEGER NOT NULL)");
  const flush = db.query("INSERT INTO usage (key, spent, calls) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET spent = spent + excluded.spent, calls = calls + excluded.calls");
  setInterval(() => {
    for (const [key, a] of accounts) {
      if (a.calls === 0) continue;
      flush.run(key, a.spent, a.calls);
      a.spent = 0;
      a.calls = 0;
    }
  }, 1000).unref();
  const refuse = (status: number) => new Response(null, { status });
  return async (req) => {
    const path = req.url.slice(req.url.indexOf("/rpc/") + 5).split("/");
    const account = accounts.get(path[1] ?? "");
    if (!account) return refuse(401);
    if (path[0] !== "eth") return refuse(404);
    const text = await req.text();
    if (jsonNestsDeeperThan(text)) return refuse(400);
    let call: { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    try {
      call = JSON.parse(text);
    } catch {
      return refuse(400);
    }
    if (typeof call !== "object" || call === null || Array.isArray(call) || call.jsonrpc !== "2.0" || typeof call.method !== "string") return refuse(400);
    for (const k of Object.keys(call)) if (!CALL_MEMBERS.has(k)) return refuse(400);
    if (!ALLOWED.has(call.method)) return refuse(400);
    const now = Date.now();
    if (now - account.windowStart >= 1000) {
      account.windowStart = now;
      account.inWindow = 0;
    }
    if (++account.inWindow > 1e9) return refuse(429);
    const cost = COSTS[call.method] ?? 1;
    if (account.credits < cost) return refuse(402);
    account.credits -= cost;
    const res = await post(upstream, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: call.id ?? null, method: call.method, params: call.params ?? [] }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const answer = await res.text();
    const judged = answer.length > MAX_RESPONSE_BYTES || jsonNestsDeeperThan(answer) ? undefined : parsedOrUndefined(answer);
    if (judged === undefined) {
      account.credits += cost;
      return refuse(502);
    }
    if (isResult(judged)) {
      account.spent += cost;
      account.calls++;
    } else account.credits += cost;
    return new Response(answer, { status: res.status, headers: { "content-type": "application/json" } });
  };
}

/** A node's answer parsed, or undefined for one that is not JSON (a failure of the node, as chainwatch's upstream pool counts it). */
function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Whether a node's answer carries a result (charged) rather than its own error (passed through, free). */
function isResult(answer: unknown): boolean {
  if (typeof answer !== "object" || answer === null) return false;
  const a = answer as { result?: unknown; error?: unknown };
  return "result" in a && (a.error === undefined || a.error === null);
}
