import type { AppDeps } from "./deps.ts";
import { refusalFor, refuseNulInUrl } from "./errors.ts";
import type { CountRequest } from "./request-metrics.ts";
import { RPC_PATHS, rpcResponder } from "./routes/rpc.ts";
import type { RpcProxy } from "../rpc/proxy.ts";

type PeerServer = Parameters<AppDeps["clientIp"]>[1];
type BunRequest = Request & { params: Record<string, string> };
/** What Bun's `serve({ routes })` takes for one path: a handler per method. */
export type NativeRoutes = Record<string, { POST: (request: BunRequest, server: PeerServer) => Promise<Response> }>;

/**
 * Routes Bun's server answers itself, before Elysia sees the request: `POST /rpc/...`. The JSON-RPC
 * proxy parses, authenticates and answers on its own, so Elysia's pipeline (context, hooks, the
 * after-response tick) only added CPU to every call (docs/benchmarks.md). The same handler stays
 * registered in Elysia, which keeps the OpenAPI document, the 405 table and `app.handle` as they
 * were; Bun sends every other method on these paths (and every other path) to Elysia's `fetch`.
 * What Elysia's app adds to each response is done here too: the request counter of /metrics, and
 * a thrown error answered with the one envelope (a 500 logged like any unhandled error).
 */
export function nativeRoutes(
  deps: AppDeps & { rpc: RpcProxy; countRequest: CountRequest; fallback: (request: Request) => Response | Promise<Response> },
): NativeRoutes {
  const answer = rpcResponder(deps);
  const route = (path: string) => ({
    POST: async (request: BunRequest, server: PeerServer): Promise<Response> => {
      // Bun's router also matches a path spelt with a doubled slash (`//rpc/eth`), which Elysia's
      // strict router answers 404: leave such a request to Elysia.
      if (!isPlainRpcPath(request.url)) return deps.fallback(request);
      let res: Response;
      try {
        // As the app's request hook does for every other route.
        refuseNulInUrl(request);
        res = await answer(request, request.params as { network: string; api_key?: string }, server);
      } catch (error) {
        const failure = refusalFor(error, request, deps.log);
        res = Response.json({ error: failure.message }, { status: failure.status, headers: failure.headers });
      }
      deps.countRequest(path, "POST", res.status);
      return res;
    },
  });
  return Object.fromEntries(RPC_PATHS.map((path) => [path, route(path)]));
}

/** Whether the request target's path starts with exactly `/rpc/` (after the scheme and authority). */
function isPlainRpcPath(url: string): boolean {
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  return url.startsWith("/rpc/", pathStart);
}
