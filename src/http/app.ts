import { type AnyElysia, Elysia } from "elysia";
import { describeValueError } from "../lib/value-errors.ts";
import type { AppDeps } from "./deps.ts";
import { methodTable, type MethodTable, type RouteEntry } from "./allowed-methods.ts";
import { FailureError, methodNotAllowed, refusalFor, refuseNulInUrl } from "./errors.ts";
import { requestCounter } from "./request-metrics.ts";
import { nativeRoutes } from "./native-routes.ts";
import { requestUrl } from "../net/request-target.ts";
import { accountRoutes } from "./routes/account.ts";
import { eventRoutes } from "./routes/events.ts";
import { healthRoutes } from "./routes/health.ts";
import { ingestRoutes } from "./routes/ingest.ts";
import { paymentRoutes } from "./routes/payments.ts";
import { rpcRoutes } from "./routes/rpc.ts";
import { createRpcProxy } from "../rpc/proxy.ts";
import { watchRoutes } from "./routes/watches.ts";
import { webhookRoutes } from "./routes/webhook.ts";
import { webhookTestRoutes } from "./routes/webhook-test.ts";
import { webhookRecoverRoutes } from "./routes/webhook-recover.ts";
import { webhookEndpointRoutes } from "./routes/webhook-endpoints.ts";
import { eventReplayRoutes } from "./routes/events-replay.ts";
import { VERSION } from "../version.ts";
import { openapiDocumentation } from "./openapi/document.ts";
import { openapiDocumentRoute } from "./openapi/document-route.ts";
import { referencePage } from "./openapi/page-route.ts";


/**
 * The whole HTTP surface: one error envelope, metrics for every response, then the route modules.
 * `beside` is another surface the composition root serves from the same server (src/server.ts),
 * mounted among the routes so the envelope, the metrics, the 405 table and the OpenAPI document
 * cover it too.
 */
export function createApp(deps: AppDeps, beside: AnyElysia = new Elysia({ name: "nothing-beside" })) {
  const countRequest = requestCounter(deps.metrics);
  /** The last answer onAfterHandle counted, by its request's `set` (one object, reused: no allocation per request). */
  const counted: { set: object | null; route: string; method: string; status: number } = { set: null, route: "", method: "", status: 0 };
  const rpc = createRpcProxy({ ...deps, pools: deps.upstreams, meter: deps.rpcMeter });
  // Read when the first unmatched request arrives, once every route below is registered.
  let listRoutes: () => readonly RouteEntry[] = () => [];
  let methods: MethodTable | undefined;
  /** No route matched: 405 (with Allow) for a known path or a method no route answers, else 404. */
  const unmatched = (request: Request): FailureError => {
    methods ??= methodTable(listRoutes());
    const url = requestUrl(request);
    const allow = url ? methods.allowedAt(url.pathname) : [];
    if (allow.includes(request.method)) return new FailureError("NOT_FOUND");
    return allow.length > 0 || !methods.serves(request.method) ? methodNotAllowed(allow) : new FailureError("NOT_FOUND");
  };
  // strictPath: `/v1/account/` is an unknown path like any other (404), not an alias.
  // systemRouter off: Elysia hands Bun's own router its routes with the trailing slash cut
  // (a root such as `/app/` registered as `/app`), which strictPath then cannot see; Elysia's router
  // keeps every path exact. (No measurable cost: bench:api within its run-to-run noise.)
  // `serve.routes`: the few routes Bun's server answers itself, without Elysia's request pipeline
  // (./native-routes.ts); every other request, and these under any other method, reach Elysia.
  // What Bun's routes leave to Elysia goes to its fetch, set once the app exists (Bun calls the
  // routes only after listen, long after that).
  let elysiaFetch: (request: Request) => Response | Promise<Response> = () => {
    throw new Error("the app is not built yet");
  };
  const routes = nativeRoutes({ ...deps, rpc, countRequest, fallback: (request) => elysiaFetch(request) });
  const app = new Elysia({ strictPath: true, systemRouter: false, serve: { routes } })
    .onError(({ code, error, set, request, route }) => {
      // A throw inside a parse hook (the JSON 413 over the body limit) arrives wrapped in Elysia's ParseError.
      if (code === "PARSE" && (error as Error).cause instanceof FailureError) error = (error as Error).cause as FailureError;
      // Elysia's own failures join the one code set; anything else is a bug, logged and hidden.
      const failure = refusalFor(error, request, deps.log, () => {
        if (code === "NOT_FOUND") return unmatched(request);
        if (code === "PARSE") return new FailureError("INVALID_JSON");
        if (code !== "VALIDATION") return null;
        const first = (error as { all?: Parameters<typeof describeValueError>[0][] }).all?.[0];
        return new FailureError("INVALID_INPUT", first ? describeValueError(first) : undefined);
      });
      set.status = failure.status;
      Object.assign(set.headers, failure.headers);
      // Every answer that is not a handler's passes here: refusals, 404 and 405, a bad URL or body.
      // A handler's answer that Elysia then failed to serialise (a value JSON cannot hold) was
      // counted by onAfterHandle below in this same turn, before any scrape could read it: it
      // moves to this status, so the request is counted once, as answered.
      if (counted.set === set) countRequest(counted.route, counted.method, counted.status, -1);
      counted.set = null;
      countRequest(route, request.method, failure.status);
      return { error: failure.message };
    })
    // A query or path parameter cannot carry a NUL character into a use case (src/lib/nul-text.ts).
    // A block body: Elysia awaits a hook whose body is a returned call, a microtask on every request.
    .onRequest(({ request }) => {
      refuseNulInUrl(request);
    })
    // Every handler's answer is counted here, and every other one in onError above. Not in
    // onAfterResponse: Elysia runs that from a setImmediate with an async closure per request, and
    // saves every response for it (about 5 µs a signed request, docs/benchmarks.md). A handler that
    // returns its own Response (the cabinet's pages, /metrics) carries its status there;
    // `set.status` is only what the other handlers set. A block body, for the same reason as above.
    .onAfterHandle(({ request, route, set, responseValue }) => {
      const status = responseValue instanceof Response ? responseValue.status : typeof set.status === "number" ? set.status : 200;
      countRequest(route, request.method, status);
      counted.set = set;
      counted.route = route;
      counted.method = request.method;
      counted.status = status;
    })
    // The JSON document at /openapi/json; the page at /openapi is ours (below), not a CDN viewer.
    .use(openapiDocumentRoute(openapiDocumentation(VERSION, deps.config)))
    .use(healthRoutes(deps))
    .use(ingestRoutes(deps))
    .use(eventRoutes(deps))
    .use(accountRoutes(deps))
    .use(paymentRoutes(deps))
    .use(watchRoutes(deps))
    .use(webhookRoutes(deps))
    .use(webhookTestRoutes(deps))
    .use(webhookRecoverRoutes(deps))
    .use(eventReplayRoutes(deps))
    .use(webhookEndpointRoutes(deps))
    .use(beside)
    .use(rpcRoutes({ ...deps, rpc }));
  listRoutes = () => app.routes;
  elysiaFetch = (request) => app.fetch(request);
  return app.use(referencePage(app));
}

