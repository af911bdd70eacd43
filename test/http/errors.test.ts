import { describe, expect, test } from "bun:test";
import { methodNotAllowed, refusalFor } from "../../src/http/errors.ts";
import { sql } from "kysely";
import { openDatabase } from "../../src/db/database.ts";
import { silentLogger } from "../../src/lib/log.ts";
import { testDatabaseUrl } from "../support/harness.ts";
import { postgresOnly } from "../support/postgres-only.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ErrorCode } from "../../src/lib/error-codes.ts";
import { FailureError, FAILURES, fromFailure } from "../../src/lib/failures.ts";

// The one code → status map every edge answers by, pinned: a change to a status or message is a
// change to the API contract and must show up here.
describe("every error code has one status and one default message", () => {
  test.each([
    ["MISSING_API_KEY", 401, "Missing X-Api-Key"],
    ["INVALID_API_KEY", 401, "Invalid API key"],
    ["INVALID_TIMESTAMP", 401, "Missing or invalid X-Timestamp"],
    ["MISSING_SIGNATURE", 401, "Missing X-Signature"],
    ["INVALID_SIGNATURE", 401, "Invalid signature"],
    ["IP_NOT_ALLOWED", 403, "IP address not allowed."],
    ["ACCOUNT_DISABLED", 403, "This account is disabled."],
    ["RATE_LIMITED", 429, "Rate limit exceeded."],
    ["INVALID_INGEST_TOKEN", 401, "Invalid ingest token."],
    ["INVALID_JSON", 400, "Invalid JSON body."],
    ["UNSUPPORTED_MEDIA_TYPE", 415, "Content-Type must be application/json."],
    ["BODY_TOO_LARGE", 413, "Request body too large."],
    ["INVALID_INPUT", 400, "Invalid request."],
    ["NOT_ABSOLUTE_HTTP", 400, "URL must be an absolute http(s) URL."],
    ["HAS_CREDENTIALS", 400, "URL must not contain credentials."],
    ["PRIVATE_ADDRESS", 400, "URL resolves to a private address."],
    ["UNRESOLVABLE", 400, "URL host could not be resolved."],
    ["NOT_FOUND", 404, "Not found."],
    ["METHOD_NOT_ALLOWED", 405, "Method not allowed."],
    ["WATCH_NOT_FOUND", 404, "Watch not found."],
    ["PAYMENT_NOT_FOUND", 404, "Payment not found."],
    ["KEY_NOT_FOUND", 404, "API key not found."],
    ["DELIVERY_NOT_FOUND", 404, "Delivery not found."],
    ["PLAN_NOT_FOUND", 404, "Plan not found."],
    ["ACCOUNT_EXISTS", 409, "Account already exists."],
    ["ACCOUNT_NOT_FOUND", 404, "Account not found."],
    ["ACCOUNT_HAS_OPEN_ORDERS", 409, "The account has open payment orders."],
    ["SLOT_LIMIT", 403, "Address slot limit reached."],
    ["ORDER_EXISTS", 409, "Order already exists."],
    ["ADDRESS_BUSY", 409, "Address already has an active order."],
    ["ADDRESS_DERIVED", 409, "Address belongs to an order of a payment wallet; it is never used for another order."],
    ["WALLET_NOT_FOUND", 404, "Wallet not found."],
    ["WALLET_EXHAUSTED", 409, "Payment wallet has handed out every index it can derive; put a new key."],
    ["NO_WEBHOOK_URL", 400, "No webhook URL configured."],
    ["WEBHOOK_DISABLED", 400, "Webhook is disabled and no payments webhook_url is set."],
    ["ENDPOINT_NOT_FOUND", 404, "Endpoint not found."],
    ["ENDPOINT_LIMIT", 403, "Endpoint limit reached."],
    ["LAST_ENDPOINT", 409, "An account keeps at least one webhook endpoint; disable it instead."],
    ["DELIVERY_SUCCEEDED", 400, "Delivery already succeeded."],
    ["DELIVERY_HELD", 400, "Delivery is held until its block has the account's min_confirmations."],
    ["REPLAY_BACKLOG_FULL", 429, "Replay backlog full; wait for it to drain."],
    ["INSUFFICIENT_CREDITS", 402, "Insufficient credits."],
    ["SIGN_IN_LINK_INVALID", 410, "This sign-in link is invalid, already used or expired."],
    ["SIGN_IN_CROSS_SITE", 403, "A sign-in must be confirmed on the sign-in page of this cabinet."],
    ["SIGN_IN_THROTTLED", 429, "Too many sign-in links that did not work came from your address."],
    ["NOT_SIGNED_IN", 401, "Not signed in."],
    ["CSRF_INVALID", 403, "Missing or invalid CSRF token. Reload the page and try again."],
    ["REORG_TOO_DEEP", 409, "Reorg deeper than max_reorg_depth."],
    ["PARENT_MISMATCH", 409, "Block does not connect to the stored chain."],
    ["BLOCK_HEIGHT_MISMATCH", 409, "Block is stored at another height."],
    ["UPSTREAM_UNAVAILABLE", 502, "Upstream unavailable."],
    ["UPSTREAM_ANSWER_TOO_LARGE", 502, "Upstream answer too large."],
    ["UPSTREAM_MALFORMED", 502, "Upstream answer malformed."],
    ["FOLLOWER_PAUSED", 503, "Follower paused by the reorg brake."],
    ["AML_UNAVAILABLE", 502, "AML provider unavailable."],
    ["DATABASE_UNAVAILABLE", 503, "Database unavailable; try again shortly."],
    ["DATABASE_CONFLICT", 503, "Database conflict: nothing was written; try again."],
    ["STORAGE_FULL", 503, "Database storage full: nothing was written; retry once space is freed."],
    ["INTERNAL", 500, "Internal error."],
  ] as [ErrorCode, number, string][])("%s → %d %s", (code, status, message) => {
    const e = new FailureError(code);
    expect([e.status, e.message]).toEqual([status, message]);
  });

  test("the table above covers the whole map", () => {
    expect(Object.keys(FAILURES).length).toBe(59);
  });

  test("only a rate-limit refusal, an unavailable database and a conflicting write carry a header: when to try again", () => {
    const withHeaders = Object.entries(FAILURES).filter(([, e]) => e.headers);
    expect(withHeaders).toEqual([
      ["RATE_LIMITED", { status: 429, message: "Rate limit exceeded.", headers: { "Retry-After": "1" } }],
      ["DATABASE_UNAVAILABLE", { status: 503, message: "Database unavailable; try again shortly.", headers: { "Retry-After": "1" } }],
      ["DATABASE_CONFLICT", { status: 503, message: "Database conflict: nothing was written; try again.", headers: { "Retry-After": "1" } }],
    ]);
  });

  test("a 405 carries the methods its path answers in Allow, an empty one when it answers none", () => {
    expect(methodNotAllowed(["GET", "HEAD"]).headers).toEqual({ Allow: "GET, HEAD" });
    expect(methodNotAllowed([]).headers).toEqual({ Allow: "" });
  });

  test("a service failure's own sentence replaces the default message, the status comes from its code", () => {
    const e = fromFailure({ ok: false, code: "INVALID_INPUT", error: "days must be an integer from 1 to 90" });
    expect([e.status, e.message]).toEqual([400, "days must be an integer from 1 to 90"]);
    const busy = fromFailure({ ok: false, code: "ADDRESS_BUSY" });
    expect([busy.status, busy.message]).toEqual([409, "Address already has an active order."]);
  });
});

const onPostgres = Boolean(process.env.CHAINWATCH_TEST_DATABASE_URL);

describe.skipIf(!onPostgres)(postgresOnly("a text value PostgreSQL cannot store"), () => {
  test("is the client's error (400 naming the NUL character), not a bug", async () => {
    // The edge refuses NUL in every input first; this is what answers one that reaches a statement.
    const dir = mkdtempSync(join(tmpdir(), "cw-nul-"));
    const db = openDatabase(testDatabaseUrl(dir));
    try {
      const thrown = await sql`select ${"a\u0000b"}::text as t`.execute(db).then(
        () => null,
        (e: unknown) => e,
      );
      expect(thrown).not.toBeNull();
      const failure = refusalFor(thrown, new Request("http://127.0.0.1/v1/payments"), silentLogger);
      expect([failure.status, failure.message]).toEqual([400, "A text value must not contain the NUL character (\\u0000)."]);
    } finally {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!onPostgres)(postgresOnly("a transaction PostgreSQL ended for a deadlock"), () => {
  test("is answered 503 with Retry-After and logged as a warning, not as a bug", async () => {
    // Two transactions that lock the same two rows in opposite orders: the server ends one.
    const dir = mkdtempSync(join(tmpdir(), "cw-deadlock-"));
    const db = openDatabase(testDatabaseUrl(dir));
    try {
      await sql`create table locks_demo (id int primary key)`.execute(db);
      await sql`insert into locks_demo values (1), (2)`.execute(db);
      const lockRow = (trx: typeof db, id: number) => sql`select id from locks_demo where id = ${id} for update`.execute(trx);
      const opposite = (first: number, second: number, bothHold: Promise<unknown>, held: () => void) =>
        db.transaction().execute(async (trx) => {
          await lockRow(trx, first);
          held();
          await bothHold;
          await lockRow(trx, second);
        });
      let holdA = () => {};
      let holdB = () => {};
      const bothHold = Promise.all([new Promise<void>((r) => (holdA = r)), new Promise<void>((r) => (holdB = r))]);
      const outcomes = await Promise.allSettled([opposite(1, 2, bothHold, holdA), opposite(2, 1, bothHold, holdB)]);
      const ended = outcomes.filter((o) => o.status === "rejected").map((o) => (o as PromiseRejectedResult).reason);
      expect(ended).toHaveLength(1);
      const logged: string[] = [];
      const log = { ...silentLogger, warn: (msg: string) => void logged.push(msg), error: (msg: string) => void logged.push(`error: ${msg}`) };
      const failure = refusalFor(ended[0], new Request("http://127.0.0.1/ingest/blocks", { method: "POST" }), log);
      expect([failure.status, failure.message, failure.headers]).toEqual([503, "Database conflict: nothing was written; try again.", { "Retry-After": "1" }]);
      expect(logged).toEqual(["request met a conflicting write and stored nothing"]);
    } finally {
      await db.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
