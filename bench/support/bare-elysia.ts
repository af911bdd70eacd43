// A baseline for `bench:api` made of the fixed stack's parts only: Elysia, configured as the daemon
// configures it (strictPath, its own router, an onError hook), answering one GET route with a JSON
// object of a given size — no auth, no database, no metrics. With `hmac`, the same route behind an
// async `derive` that checks the signed API's three headers the way the daemon does (key looked up
// in a Map, timestamp within 300 s, HMAC-SHA256 of the canonical string with a keyed
// Bun.CryptoHasher, compared in constant time against the decoded hex), still without a database.
// `hmac-sync` does the same check in a synchronous `derive` (what an async hook costs Elysia's
// pipeline). `bun bench/support/bare-elysia.ts <port> <body bytes> <path> plain|hmac|hmac-sync
// [<keys.json>]`, where keys.json is `{ "<api key>": "<secret>" }`.
import { Elysia } from "elysia";
import { timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { jsonOfSize } from "./bare-server.ts";

/** SHA-256 of the empty body: a GET signs it. */
const EMPTY_SHA256 = new Bun.CryptoHasher("sha256").update("").digest("hex");
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

class Unauthorized extends Error {}

/** Whether the request carries a valid signature of a known key (the daemon's checks, minus rate limit and IP allowlist). */
function signedBy(secrets: ReadonlyMap<string, string>, request: Request, path: string): boolean {
  const apiKey = request.headers.get("x-api-key");
  const timestamp = request.headers.get("x-timestamp");
  const signature = request.headers.get("x-signature");
  const secret = apiKey === null ? undefined : secrets.get(apiKey);
  if (secret === undefined || timestamp === null || signature === null) return false;
  if (Math.abs(Math.floor(Date.now() / 1000) - Number(timestamp)) > 300) return false;
  const expected = new Bun.CryptoHasher("sha256", secret).update(`${timestamp}\n${request.method}\n${path}\n${EMPTY_SHA256}`).digest();
  return HEX_SHA256.test(signature) && timingSafeEqual(Buffer.from(signature, "hex"), expected);
}

if (import.meta.main) {
  const [portArg, bytesArg, path = "/v1/account", mode = "plain", keysFile] = process.argv.slice(2);
  // Parsed once: Elysia serializes the handler's object on every request, as the daemon's routes do.
  const payload = JSON.parse(jsonOfSize(Number(bytesArg ?? 256))) as Record<string, string>;
  const base = new Elysia({ strictPath: true, systemRouter: false }).onError(({ error, set }) => {
    set.status = error instanceof Unauthorized ? 401 : 500;
    return { error: error instanceof Unauthorized ? "Invalid signature." : "Internal error." };
  });
  const secrets = () => new Map(Object.entries(JSON.parse(readFileSync(String(keysFile), "utf8")) as Record<string, string>));
  const app =
    mode === "hmac"
      ? ((keys) =>
          base
            // Async, as the daemon's signature plugin is (its key and rate-limit look-ups may wait).
            .derive(async ({ request, path: signedPath }) => {
              if (!signedBy(keys, request, signedPath)) throw new Unauthorized();
              return { apiKey: request.headers.get("x-api-key") };
            })
            .get(path, () => payload))(secrets())
      : mode === "hmac-sync"
        ? ((keys) =>
            base
              .derive(({ request, path: signedPath }) => {
                if (!signedBy(keys, request, signedPath)) throw new Unauthorized();
                return { apiKey: request.headers.get("x-api-key") };
              })
              .get(path, () => payload))(secrets())
        : base.get(path, () => payload);
  app.listen({ hostname: "127.0.0.1", port: Number(portArg), development: false, reusePort: false });
  process.on("SIGTERM", () => {
    app.stop(true).finally(() => process.exit(0));
  });
}
