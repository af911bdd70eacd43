import { Elysia } from "elysia";
import type { KeyStore } from "../../auth/key-store.ts";
import type { RateLimiter } from "../../auth/rate-limiter.ts";
import { sha256Hex } from "../../auth/canonical.ts";
import { verifySignedRequest } from "../../auth/verify.ts";
import { andThen } from "../../lib/maybe-promise.ts";
import { type Clock, instantOf } from "../../lib/clock.ts";
import type { ClientIpResolver } from "../../net/client-ip.ts";
import { FailureError } from "../errors.ts";
import type { Metrics } from "../../lib/metrics.ts";
import { leaveBodyUnread, readBody } from "../../net/unread-body.ts";
import { parseJsonBody } from "./json-body.ts";

type PeerServer = Parameters<ClientIpResolver>[1];

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
 * module `.use()`s its own instance; the derived `auth` names the account for the handler, and
 * `body` the parsed JSON.
 */
export function signature(deps: SignatureDeps) {
  // The server the app listens on, for the peer's address (asked only when a key has an allowlist).
  // Not taken from the hook's context: naming `server` there makes Elysia define it on every
  // request's context, which cost every signed request. Null under app.handle, as it is there.
  let server: PeerServer | null = null;
  // The parse hook sits on this instance, not in a nested plugin: a scoped hook climbs one level
  // only, and it must reach the routes of the module using this plugin, or Elysia's default parser
  // reads and parses the body before the signature is checked.
  return new Elysia()
    .onParse({ as: "scoped" }, leaveBodyUnread(deps.bodyLimit))
    .onStart((app) => {
      server = app.server;
    })
    // Not an `async` function: a cached key and the in-memory limiter answer at once, and only a
    // check that waits (a key not cached, the cluster limiter, a body still to read) returns a
    // promise. Elysia awaits this hook all the same (it reads the source: a returned call), so a
    // promise or a value both work; an `async` function would allocate a promise on every request.
    .derive({ as: "scoped" }, (ctx) => {
      // Headers are read one by one: naming `headers` here makes Elysia copy every header of every request into an object.
      const { request, path } = ctx;
      let raw = "";
      const outcome = verifySignedRequest(
        {
          apiKey: request.headers.get("x-api-key"),
          timestamp: request.headers.get("x-timestamp"),
          signature: request.headers.get("x-signature"),
          method: request.method,
          path,
          // Read only when the signature is about to be checked (the verifier's last step before it).
          bodySha256: request.body === null ? EMPTY_SHA256 : () => readBody(request, deps.bodyLimit).then((text) => sha256Hex((raw = text))),
          clientIp: () => deps.clientIp(request, server),
        },
        { findKey: deps.keys.find, limiter: deps.limiter, rateLimit: deps.rateLimit, at: instantOf(deps.clock) },
      );
      return andThen(outcome, (verified) => {
        if (!verified.ok) {
          deps.metrics.inc("chainwatch_auth_rejections_total", { reason: verified.code.toLowerCase() });
          throw new FailureError(verified.code);
        }
        const auth = { accountId: verified.key.accountId, apiKey: verified.key.apiKey };
        // Parsed only now, from the bytes the signature covered, for every method whose route Elysia
        // runs the parse hook for (all but GET and HEAD). Decided by the method, not by looking at
        // `ctx.body`: Elysia reads this function's source, and naming the body here would make it
        // parse every request's query string and copy its headers.
        if (request.method === "GET" || request.method === "HEAD") return { auth };
        return { auth, body: parseJsonBody(request, raw) };
      });
    });
}
