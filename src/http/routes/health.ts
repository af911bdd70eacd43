import { Elysia } from "elysia";
import { createDatabaseProbe } from "../../db/health-probe.ts";
import { failureMessage, failureStatus } from "../../lib/failures.ts";
import type { AppDeps } from "../deps.ts";
import { responses, UNSIGNED } from "../openapi/responses.ts";

// How long /healthz waits for the database before it answers 503 anyway.
const HEALTH_PROBE_MS = 2_000;

/** Unauthenticated operations endpoints: liveness (the daemon and its database) and Prometheus metrics. */
export function healthRoutes(deps: AppDeps) {
  const probe = createDatabaseProbe(deps.db, HEALTH_PROBE_MS);
  return new Elysia()
    .get(
      "/healthz",
      async ({ set }) => {
        const health = await probe();
        if (health.ok) return { ok: true };
        // The status of the code, without the API's Retry-After: a load balancer polls on its own schedule.
        set.status = failureStatus(health);
        return { ok: false, error: failureMessage(health) };
      },
      {
        detail: {
          summary: "Liveness",
          tags: ["operations"],
          security: UNSIGNED,
          responses: responses({ 200: ["Health", "The daemon is up and its database answers"], 503: ["Unhealthy", "The database did not answer within 2 s, or failed; says why"] }, [], { signed: false }),
        },
      },
    )
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
