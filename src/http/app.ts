import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import { cabinetRoutes } from "../cabinet/routes.ts";
import { describeValueError } from "../lib/value-errors.ts";
import type { AppDeps } from "./deps.ts";
import { ApiError } from "./errors.ts";
import { accountRoutes } from "./routes/account.ts";
import { eventRoutes } from "./routes/events.ts";
import { healthRoutes } from "./routes/health.ts";
import { ingestRoutes } from "./routes/ingest.ts";
import { paymentRoutes } from "./routes/payments.ts";
import { watchRoutes } from "./routes/watches.ts";
import { webhookRoutes } from "./routes/webhook.ts";
import { webhookTestRoutes } from "./routes/webhook-test.ts";

export const VERSION = "0.1.0";

/** The whole HTTP surface: one error envelope, metrics for every response, then the route modules. */
export function createApp(deps: AppDeps) {
  return new Elysia()
    .onError(({ code, error, set, request }) => {
      // A throw inside a parse hook (the JSON 413 over the body limit) arrives wrapped in Elysia's ParseError.
      if (code === "PARSE" && (error as Error).cause instanceof ApiError) error = (error as Error).cause as ApiError;
      if (error instanceof ApiError) {
        set.status = error.status;
        Object.assign(set.headers, error.headers);
        return { error: error.message };
      }
      if (code === "NOT_FOUND") {
        set.status = 404;
        return { error: "Not found." };
      }
      if (code === "PARSE") {
        set.status = 400;
        return { error: "Invalid JSON body." };
      }
      if (code === "VALIDATION") {
        set.status = 400;
        const first = (error as { all?: Parameters<typeof describeValueError>[0][] }).all?.[0];
        return { error: first ? describeValueError(first) : "Invalid request." };
      }
      deps.log.error("unhandled error", { path: new URL(request.url).pathname, error: String(error) });
      set.status = 500;
      return { error: "Internal error." };
    })
    .onAfterResponse(({ request, route, set }) => {
      deps.metrics.inc("chainwatch_http_requests_total", {
        route: route || "unmatched",
        method: request.method,
        status: typeof set.status === "number" ? set.status : 200,
      });
    })
    .use(
      openapi({
        path: "/openapi",
        documentation: {
          info: { title: "chainwatch", version: VERSION, description: "Signed address-watch, webhook and payment-order API." },
          components: {
            securitySchemes: {
              ApiKey: { type: "apiKey", in: "header", name: "X-Api-Key" },
              Timestamp: { type: "apiKey", in: "header", name: "X-Timestamp" },
              Signature: { type: "apiKey", in: "header", name: "X-Signature" },
            },
          },
          security: [{ ApiKey: [], Timestamp: [], Signature: [] }],
        },
      }),
    )
    .use(healthRoutes(deps))
    .use(ingestRoutes(deps))
    .use(eventRoutes(deps))
    .use(accountRoutes(deps))
    .use(paymentRoutes(deps))
    .use(watchRoutes(deps))
    .use(webhookRoutes(deps))
    .use(webhookTestRoutes(deps))
    .use(deps.config.cabinet.enabled ? cabinetRoutes(deps) : new Elysia({ name: "cabinet-disabled" }));
}

