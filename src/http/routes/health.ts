import { Elysia } from "elysia";
import type { AppDeps } from "../deps.ts";
import { responses, UNSIGNED } from "../openapi/responses.ts";

/** Unauthenticated operations endpoints: liveness and Prometheus metrics. */
export function healthRoutes(deps: AppDeps) {
  return new Elysia()
    .get("/healthz", () => ({ ok: true }), { detail: { summary: "Liveness", tags: ["operations"], security: UNSIGNED, responses: responses({ 200: ["Health", "The daemon is up"] }, [], { signed: false }) } })
    // Browsers ask every server for /favicon.ico (the /openapi page, a /healthz opened by hand):
    // nothing to show is an answer, not a 404 in the logs and metrics. The cabinet's pages name
    // their own icon, /cabinet/favicon.svg.
    .get("/favicon.ico", () => new Response(null, { status: 204, headers: { "cache-control": "public, max-age=86400" } }), { detail: { hide: true } })
    .get(
      "/metrics",
      () =>
        new Response(deps.metrics.render(), {
          headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
        }),
      {
        detail: {
          summary: "Prometheus metrics",
          tags: ["operations"],
          security: UNSIGNED,
          responses: { 200: { description: "Prometheus text exposition format 0.0.4", content: { "text/plain": { schema: { type: "string" } } } } },
        },
      },
    );
}
