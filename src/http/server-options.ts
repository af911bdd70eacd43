import type { Config } from "../config/schema.ts";
import type { Logger } from "../lib/log.ts";

const INTERNAL_ERROR = JSON.stringify({ error: "Internal error." });

/**
 * What Bun's server is started with. Never development mode: Elysia turns it on unless
 * NODE_ENV=production, and Bun's development error page shows the working directory, source
 * paths and lines to whoever made a request fail. A throw that escapes the app's own error
 * handler (there should be none) still answers the one JSON envelope and is logged as JSON.
 */
export function serverOptions(config: Config, log: Logger) {
  return {
    hostname: config.server.host,
    port: config.server.port,
    development: false,
    // Elysia turns SO_REUSEPORT on: a second daemon on the same port would then start "fine" and
    // split the traffic (and the per-process rate limits) with the first. Fail instead.
    reusePort: false,
    // Bun's own cap sits above every route limit so the routes answer with a JSON 413.
    maxRequestBodySize: 2 * Math.max(config.server.body_limit_bytes, config.ingest.body_limit_bytes),
    error(error: Error): Response {
      log.error("unhandled error", { error: String(error) });
      return new Response(INTERNAL_ERROR, { status: 500, headers: { "content-type": "application/json;charset=utf-8" } });
    },
  };
}
