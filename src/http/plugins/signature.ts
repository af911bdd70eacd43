import { Elysia } from "elysia";
import type { KeyStore } from "../../auth/key-store.ts";
import type { RateLimiter } from "../../auth/rate-limiter.ts";
import { sha256Hex } from "../../auth/canonical.ts";
import { verifySignedRequest } from "../../auth/verify.ts";
import { type Clock, instantOf } from "../../lib/clock.ts";
import type { ClientIpResolver } from "../../net/client-ip.ts";
import { FailureError } from "../errors.ts";
import type { Metrics } from "../../lib/metrics.ts";
import { type RawBodyContext, rawJsonParser, requireJson } from "./raw-body.ts";

export type SignatureDeps = {
  keys: KeyStore;
  limiter: RateLimiter;
  rateLimit: number;
  clock: Clock;
  clientIp: ClientIpResolver;
  bodyLimit: number;
  metrics: Metrics;
};

const EMPTY_SHA256 = sha256Hex("");

/**
 * The signed-API guard (docs/api.md): adapts the pure verifier to Elysia. Each route
 * module `.use()`s its own instance; the derived `auth` names the account for the handler.
 */
export function signature(deps: SignatureDeps) {
  // The parser sits on this instance, not in a nested plugin: a scoped hook climbs one level only,
  // and it must reach the routes of the module using this plugin, or Elysia's default parser eats
  // the body first and every signed body fails its check (and a bad one answers 400 before auth).
  return new Elysia()
    .onParse({ as: "scoped" }, rawJsonParser(deps.bodyLimit))
    .derive({ as: "scoped" }, async (ctx) => {
      // Headers are read one by one: naming `headers` here makes Elysia copy every header of every request into an object.
      const { request, server, path } = ctx;
      let raw = (ctx as RawBodyContext).rawBody;
      // Elysia skips the parser when there is no content type; read the body here then.
      if (raw === undefined && request.body && !request.bodyUsed) raw = await request.text();
      const outcome = await verifySignedRequest(
        {
          apiKey: request.headers.get("x-api-key"),
          timestamp: request.headers.get("x-timestamp"),
          signature: request.headers.get("x-signature"),
          method: request.method,
          path,
          bodySha256: raw ? sha256Hex(raw) : EMPTY_SHA256,
          clientIp: () => deps.clientIp(request, server),
        },
        { findKey: deps.keys.find, limiter: deps.limiter, rateLimit: deps.rateLimit, at: instantOf(deps.clock) },
      );
      if (!outcome.ok) {
        deps.metrics.inc("chainwatch_auth_rejections_total", { reason: outcome.code.toLowerCase() });
        throw new FailureError(outcome.code);
      }
      requireJson(request, raw, ctx.body);
      return { auth: { accountId: outcome.key.accountId, apiKey: outcome.key.apiKey } };
    });
}
