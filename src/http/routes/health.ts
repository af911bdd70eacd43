import { Elysia } from "elysia";
import type { AppDeps } from "../deps.ts";

/** Unauthenticated operations endpoints: liveness and Prometheus metrics. */
export function healthRoutes(deps: AppDeps) {
  return new Elysia()
    .get("/healthz", () => ({ ok: true }), { detail: { summary: "Liveness", tags: ["operations"] } })
    .get(
      "/metrics",
      () =>
        new Response(deps.metrics.render(), {
          headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
        }),
      { detail: { summary: "Prometheus metrics", tags: ["operations"] } },
    );
}
