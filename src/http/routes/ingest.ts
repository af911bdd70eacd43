import { Elysia } from "elysia";
import type { AppDeps } from "../deps.ts";
import { blocksFromFeed } from "../../ingest/block-from-feed.ts";
import { leaveBodyUnread, readBody } from "../../net/unread-body.ts";
import { FailureError, fromFailure, invalidJson, notFound } from "../errors.ts";
import { parseJsonBody } from "../plugins/json-body.ts";
import { jsonRequest, responses, says } from "../openapi/responses.ts";

/**
 * Whether `Authorization: Bearer <token>` carries the configured token. Both sides are hashed
 * first so the comparison is constant-time and the token's length does not leak either.
 */
export function ingestTokenMatches(authorization: string | null, token: string): boolean {
  const presented = authorization?.startsWith("Bearer ") ? authorization.slice("Bearer ".length) : "";
  const digest = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest();
  return crypto.timingSafeEqual(digest(presented), digest(token)) && presented !== "";
}

/** POST /ingest/blocks: the indexer feed (docs/chains.md), guarded by the ingest bearer token, not by API keys. */
export function ingestRoutes(deps: AppDeps) {
  const { token, body_limit_bytes: limit } = deps.config.ingest;
  const guard = (request: Request) => {
    // An empty token means the feed is off: the route answers as if it did not exist.
    if (token === "") throw notFound();
    if (!ingestTokenMatches(request.headers.get("authorization"), token)) throw new FailureError("INVALID_INGEST_TOKEN");
  };
  const unread = leaveBodyUnread(limit);
  return (
    new Elysia()
      // The token is checked before a byte of the body is read, so a stranger cannot make us buffer
      // 16 MiB; the hook's value keeps Elysia's own parser off the body (../../net/unread-body.ts).
      // Only the request is handed on: given Elysia's whole context, a function makes Elysia take
      // every part of it as used, and parse the query and copy the headers of every request of the
      // routes registered after this one.
      .onParse(({ request }) => {
        guard(request);
        return unread({ request });
      })
      .post(
        "/ingest/blocks",
        async ({ request, set }) => {
          guard(request);
          const raw = await readBody(request, limit);
          const body = parseJsonBody(request, raw);
          // A batch is never empty: no body is not "no blocks" (that is `[]`).
          if (raw.trim() === "") throw invalidJson();
          // The feed's JSON becomes the blocks a follower hands the ingest; a bad block refuses it all.
          const batch = blocksFromFeed(body, deps.config.networks);
          if (!batch.ok) throw fromFailure(batch);
          const result = await deps.ingest.ingestBlocks(batch.blocks, { fieldOf: batch.fieldOf });
          // A batch the stored chain cannot take (a too-deep reorg, a block that does not connect, a
          // stored hash at another height) conflicts with it: 409.
          if (!result.ok) throw fromFailure(result);
          set.status = 202;
          return { blocks: result.blocks, events: result.events };
        },
        {
          detail: {
            summary: "Feed a block batch (one block or an array); 202 with new blocks and events written; 409 for a reorg deeper than max_reorg_depth, a block that does not connect or a stored block hash sent at another height",
            description: "Authenticated by `Authorization: Bearer <ingest.token>`, not by API keys; disabled (404) when no token is configured.",
            tags: ["ingest"],
            security: [{ IngestToken: [] }],
            requestBody: jsonRequest("IngestBatch"),
            responses: responses(
              { 202: ["IngestResult", "Stored; counts of new blocks and events"] },
              [
                [400, "Invalid JSON body, or a field error naming the block and field; nothing of the batch is stored"],
                [401, says("INVALID_INGEST_TOKEN")],
                [404, "The feed is off (no ingest.token)"],
                [409, "A reorg deeper than max_reorg_depth, a block that does not connect to the stored chain, or a stored block hash sent at another height"],
                413,
                [415, says("UNSUPPORTED_MEDIA_TYPE")],
              ],
              { signed: false },
            ),
          },
        },
      )
  );
}
