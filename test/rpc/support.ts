import { eventually as pollEventually, type PollOptions } from "../support/poll.ts";
import { freePort } from "../support/free-port.ts";

/** A JSON-RPC answer from /rpc as a client sees it: status, Retry-After and the parsed body. */
export type RpcResponse = { status: number; retryAfter: string | null; contentType: string | null; body: any };

/** POSTs `body` (sent exactly as given when a string, else JSON-encoded) to a chainwatch URL. */
export async function postRpc(url: string, body: unknown, headers: Record<string, string> = {}): Promise<RpcResponse> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, retryAfter: res.headers.get("retry-after"), contentType: res.headers.get("content-type"), body: JSON.parse(text) };
}

/** One JSON-RPC 2.0 call object. */
export function call(id: number | string | null, method: string, params: unknown[] = []) {
  return { jsonrpc: "2.0", id, method, params };
}

/** The JSON-RPC error object chainwatch answers with. */
export function rpcError(id: number | string | null, code: number, message: string) {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

/** An address on 127.0.0.1 where nothing listens. */
export function deadUpstreamUrl(path = "/v3/secret-key"): string {
  // Below the kernel's ephemeral range: no other test's server or connection is handed it meanwhile.
  return `http://127.0.0.1:${freePort()}${path}`;
}

/** The poll helper's eventually, 50 ms apart by default: each try is a real /rpc call, which the rate limits see. */
export function eventually<T>(attempt: () => Promise<T | undefined>, opts: PollOptions = {}): Promise<T> {
  return pollEventually(attempt, { everyMs: 50, ...opts });
}
