import { Elysia } from "elysia";
import { RPC_ERRORS } from "../../rpc/jsonrpc.ts";
import type { RpcAnswer, RpcProxy } from "../../rpc/proxy.ts";
import type { AppDeps } from "../deps.ts";
import { tooLarge } from "../errors.ts";
import { readLimitedText } from "../../net/read-body.ts";

const DESCRIPTION = `JSON-RPC 2.0 (one call or a batch of up to 100) forwarded to the network's \`rpc_urls\` with failover.
Authenticated by the API key alone — the \`X-Api-Key\` header or the path form \`/rpc/{network}/{api_key}\` — so any wallet
library that takes a URL works; the key's IP allowlist applies. Only methods on the allow-list (chain reads and
\`eth_sendRawTransaction\`, plus the operator's \`[rpc] extra_methods\`) are forwarded. Each call counts toward the plan's
\`rpc_rps\` and costs credits from \`[rpc.costs]\` when the node answers it with a result; answers over
\`[rpc] response_bytes_per_credit\` cost more. Errors carry the request's id: 401 -32010, 403 -32011, 404 -32012,
429 -32005 (Retry-After: 1), 402 -32013, 200 -32601 for methods not allowed, 400 -32700/-32600, 502 -32603. A request
refused whole (key, IP, network, framing) answers one error object, with id null for a batch. Notifications (calls
without an id) are forwarded and billed but never answered: a request of notifications alone answers 204.`;

/** The /rpc route's two paths, as both Elysia and Bun's server (../native-routes.ts) register them. */
export const RPC_PATHS = ["/rpc/:network", "/rpc/:network/:api_key"] as const;

type RpcParams = { network: string; api_key?: string };
type PeerServer = Parameters<AppDeps["clientIp"]>[1];

/**
 * The HTTP shell around the JSON-RPC proxy: hands it the key, a way to read the body as text
 * within a limit (413 past the server's) once the key is known, and a way to find the client's
 * IP, and answers the proxy's status and bytes.
 * Shared by the Elysia route (OpenAPI document, 405 table, `app.handle`) and by Bun's server,
 * which answers these paths without Elysia's request pipeline.
 */
export function rpcResponder(deps: Pick<AppDeps, "config" | "clientIp"> & { rpc: RpcProxy }) {
  const limit = deps.config.server.body_limit_bytes;
  const tooLargeMessage = tooLarge(limit).message;
  return async (request: Request, params: RpcParams, server: PeerServer): Promise<Response> => {
    const answer = await deps.rpc.handle({
      network: params.network,
      apiKey: params.api_key ?? request.headers.get("x-api-key"),
      // Found only if the key has an IP allowlist: asking the server for the peer has a cost.
      clientIp: () => deps.clientIp(request, server),
      readBody: (max = limit) => readLimitedText(request, max),
      tooLarge: tooLargeMessage,
    });
    return respond(answer);
  };
}

function respond(answer: RpcAnswer): Response {
  if (answer.body === "") return new Response(null, { status: answer.status, headers: answer.retryAfter ? RETRY_HEADERS : undefined });
  return new Response(answer.body, { status: answer.status, headers: answer.retryAfter ? JSON_RETRY_HEADERS : JSON_HEADERS });
}

const JSON_HEADERS = { "content-type": "application/json" };
const JSON_RETRY_HEADERS = { ...JSON_HEADERS, "retry-after": "1" };
const RETRY_HEADERS = { "retry-after": "1" };

/** POST /rpc/{network} and /rpc/{network}/{api_key}: the HTTP shell around the JSON-RPC proxy (docs/rpc.md). */
export function rpcRoutes(deps: AppDeps & { rpc: RpcProxy }) {
  const answer = rpcResponder(deps);
  const handler = async (ctx: { request: Request; params: RpcParams; server: unknown; set: { status?: number | string } }) => {
    const res = await answer(ctx.request, ctx.params, ctx.server as PeerServer);
    // Recorded for the request metrics too, which read `set.status`.
    ctx.set.status = res.status;
    return res;
  };
  const detail = (summary: string, security: Record<string, string[]>[]) => ({
    detail: {
      summary,
      description: DESCRIPTION,
      tags: ["json-rpc"],
      security,
      requestBody: { content: { "application/json": { schema: { description: "A JSON-RPC 2.0 request object, or an array of up to 100" } } } },
      responses: RPC_RESPONSES,
    },
    // The body is read here, as text, and handed to the proxy, which scans its nesting before it
    // parses it: Elysia must not parse it first.
    parse: "none" as const,
  });
  return new Elysia()
    .post(RPC_PATHS[0], handler, detail("JSON-RPC endpoint (key in X-Api-Key)", [{ ApiKey: [] }]))
    .post(RPC_PATHS[1], handler, detail("JSON-RPC endpoint (key in the path)", []));
}

/** A JSON-RPC 2.0 answer: the node's own, or chainwatch's refusal with the request's id. */
const RPC_ANSWER = {
  "application/json": {
    schema: {
      description: "A JSON-RPC 2.0 response object ({jsonrpc, id, result} or {jsonrpc, id, error: {code, message}}), or an array of them for a batch",
    },
  },
};
const rpcError = (description: string) => ({ description, content: RPC_ANSWER });

/** An error of the table as the document quotes it: `-32010 Invalid API key`. */
const quote = (e: (typeof RPC_ERRORS)[keyof typeof RPC_ERRORS]) => `${e.code} ${e.message}`;

/** Every status /rpc answers with (docs/rpc.md has the error table); each body is JSON-RPC, not {"error": "…"}. */
const RPC_RESPONSES = {
  "200": { description: `The node's answer, passed through; also ${RPC_ERRORS.METHOD_NOT_ALLOWED.code} for a method not on the allow-list`, content: RPC_ANSWER },
  "204": { description: "Notifications alone (calls without an id): forwarded, nothing to answer" },
  "400": rpcError(
    `${RPC_ERRORS.PARSE_ERROR.code} body is not JSON, or ${RPC_ERRORS.INVALID_REQUEST.code} not JSON-RPC 2.0 (a call with a member other than jsonrpc, id, method and params included), JSON nested deeper than 64 levels, an empty batch or more than 100 calls (one error object)`,
  ),
  "401": rpcError(`${quote(RPC_ERRORS.INVALID_API_KEY)} (one error object; id null for a batch)`),
  "402": rpcError(quote(RPC_ERRORS.INSUFFICIENT_CREDITS)),
  "403": rpcError(`${quote(RPC_ERRORS.IP_NOT_ALLOWED)} or ${quote(RPC_ERRORS.ACCOUNT_DISABLED)} (one error object; id null for a batch)`),
  "404": rpcError(`${quote(RPC_ERRORS.UNKNOWN_NETWORK)}: X (no rpc_urls), or JSON-RPC is not available for network X (family F): a family without a method policy, such as tron (one error object)`),
  "413": rpcError(`${RPC_ERRORS.INVALID_REQUEST.code} body over server.body_limit_bytes`),
  "429": {
    ...rpcError(`${quote(RPC_ERRORS.RATE_LIMITED)} (the plan's rpc_rps, per account)`),
    headers: { "Retry-After": { schema: { type: "integer" as const }, description: "Seconds to wait: 1" } },
  },
  "502": rpcError(`${quote(RPC_ERRORS.UPSTREAM_UNAVAILABLE)} (every rpc_urls node failed), or the node's answer exceeded the network's max_response_bytes`),
};
