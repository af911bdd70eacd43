import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { retryDelivery } from "../../src/delivery/admin.ts";
import { addNotices, type NewNotice, openNotices } from "../../src/notices/notices.ts";
import { NoticeList } from "../../src/http/openapi/schemas.ts";
import { rfc3339 } from "../../src/lib/time.ts";
import { signIn } from "../cabinet/support.ts";
import { manualClock } from "../support/clock.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { type Engine, openEngine } from "./fixtures.ts";

type Json = Record<string, any>;

describe("GET /v1/account/notices (docs/api.md)", () => {
  const clock = manualClock();
  let d: TestDaemon;
  let a: TestClient;
  let b: TestClient;
  /** A's notices as written, oldest first. */
  const written: { message: string; createdAt: number }[] = [];

  const page = async (client: TestClient, query = "") => {
    const res = await client.request("GET", `/v1/account/notices${query}`);
    return { status: res.status, body: (await res.json()) as Json };
  };

  beforeAll(async () => {
    d = await startTestDaemon({ clock, config: { rate_limit: { per_key_rps: 1000 } } });
    a = await d.client();
    b = await d.client();
    for (let i = 0; i < 25; i++) {
      const n: NewNotice = { accountId: a.accountId, type: "delivery_failed", message: `notice ${i}`, deliveryId: `dlv_${String(i).padStart(24, "0")}`, createdAt: clock.now() };
      await addNotices(d.ctx.db, [n]);
      written.push({ message: n.message, createdAt: n.createdAt });
      clock.advance(1000);
    }
    await addNotices(d.ctx.db, [{ accountId: b.accountId, type: "endpoint_disabled", message: "B's own", deliveryId: null, createdAt: clock.now() }]);
  });
  afterAll(() => d.stop());

  test("newest first, 20 by default, with the cursor of the next page; the last page ends with null", async () => {
    const first = await page(a);
    expect(first.status).toBe(200);
    expect(Value.Check(NoticeList, first.body)).toBe(true);
    expect(first.body.notices.map((n: Json) => n.message)).toEqual(written.slice(5).reverse().map((n) => n.message));
    expect(first.body.notices[0]).toEqual({
      id: expect.stringMatching(/^ntc_[0-9a-f]{24}$/),
      type: "delivery_failed",
      created_at: rfc3339(written[24].createdAt),
      message: "notice 24",
      delivery_id: `dlv_${"24".padStart(24, "0")}`,
      resolved_at: null,
    });
    expect(first.body.next_after).toBe(first.body.notices[19].id);

    const rest = await page(a, `?after=${first.body.next_after}`);
    expect(rest.status).toBe(200);
    expect(rest.body.notices.map((n: Json) => n.message)).toEqual(["notice 4", "notice 3", "notice 2", "notice 1", "notice 0"]);
    expect(rest.body.next_after).toBeNull();
  });

  test("limit pages by any size from 1 to 100", async () => {
    const seen: string[] = [];
    let after: string | null = null;
    do {
      const res = await page(a, `?limit=7${after ? `&after=${after}` : ""}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.notices.map((n: Json) => n.message));
      after = res.body.next_after;
    } while (after !== null);
    expect(seen).toEqual(written.map((n) => n.message).reverse());
    expect((await page(a, "?limit=100")).body.notices.length).toBe(25);
  });

  test("an endpoint notice carries no delivery_id; another account's notices are not listed", async () => {
    const res = await page(b);
    expect(res.body).toEqual({
      notices: [{ id: expect.stringMatching(/^ntc_/), type: "endpoint_disabled", created_at: rfc3339(clock.now()), message: "B's own", resolved_at: null }],
      next_after: null,
    });
  });

  test.each([
    ["?limit=0", "limit must be an integer from 1 to 100"],
    ["?limit=101", "limit must be an integer from 1 to 100"],
    ["?limit=ten", "limit must be an integer from 1 to 100"],
    ["?limit=5&limit=6", "limit must be an integer from 1 to 100"],
    ["?after=ntc_1&after=ntc_2", "after must be given once"],
    ["?after=", "after must not be empty"],
    ["?after=ntc_000000000000000000000000", "Unknown cursor: ntc_000000000000000000000000"],
  ])("%s is refused with 400 naming the parameter", async (query, error) => {
    expect(await page(a, query)).toEqual({ status: 400, body: { error } });
  });

  test("another account's notice is no cursor", async () => {
    const theirs = (await page(b)).body.notices[0].id;
    expect(await page(a, `?after=${theirs}`)).toEqual({ status: 400, body: { error: `Unknown cursor: ${theirs}` } });
  });

  test("is signed like every /v1 route", async () => {
    const res = await fetch(`${d.url}/v1/account/notices`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "Missing X-Api-Key" });
  });

  test("the cabinet's overview shows the latest five", async () => {
    const user = await signIn(d, a.accountId);
    const html = await (await user.get("/cabinet/")).text();
    const list = /<ul id="notices">(.*?)<\/ul>/s.exec(html)?.[1] ?? "";
    expect([...list.matchAll(/notice (\d+)/g)].map((m) => m[1])).toEqual(["24", "23", "22", "21", "20"]);
    expect(list).toContain(`datetime="${rfc3339(written[24].createdAt)}"`);
  });
});

describe("a delivery that uses up its attempts leaves a delivery_failed notice", () => {
  let sink: WebhookSink;
  let engine: Engine | undefined;

  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    await sink.stop();
  });

  const noticesOf = (accountId: string) => engine!.ctx.db.selectFrom("notices").selectAll().where("account_id", "=", accountId).orderBy("id").execute();

  test("one notice per failed delivery, written with its settlement; retries and successes leave none; nothing is sent about it", async () => {
    sink = startWebhookSink();
    const clock = manualClock();
    engine = await openEngine({ clock, config: { delivery: { backoff_seconds: [0], max_attempts: 2 }, billing: { enabled: false } } });
    const acct = await engine.account({ url: sink.url });
    sink.respond((req) => new Response("no", { status: req.headers.get("x-webhook-id") === ok ? 200 : 503 }));
    const failing = [await engine.queue(acct.id, { eventType: "payout", network: "bsc" }), await engine.queue(acct.id)];
    const ok = await engine.queue(acct.id);
    await engine.run();

    expect((await engine.delivery(ok)).status).toBe("succeeded");
    const notices = await noticesOf(acct.id);
    expect(notices.map((n) => [n.type, n.delivery_id, n.message, Number(n.created_at)])).toEqual(
      expect.arrayContaining([
        ["delivery_failed", failing[0], `Delivery ${failing[0]} (payout on bsc) failed after 2 attempts; last error: http 503. It can be sent again.`, clock.now()],
        ["delivery_failed", failing[1], `Delivery ${failing[1]} (payment on eth) failed after 2 attempts; last error: http 503. It can be sent again.`, clock.now()],
      ]),
    );
    expect(notices.length).toBe(2);
    // The receiver got the deliveries' own bodies and nothing else.
    expect(sink.received.length).toBe(5);
    expect(new Set(sink.received.map((r) => r.headers["x-webhook-id"]))).toEqual(new Set([...failing, ok]));
  });

  test("retrying the failed delivery resolves its notice, which stays listed", async () => {
    sink = startWebhookSink();
    const clock = manualClock();
    engine = await openEngine({ clock, config: { delivery: { backoff_seconds: [0], max_attempts: 1 }, billing: { enabled: false } } });
    const acct = await engine.account({ url: sink.url });
    sink.respond(() => new Response("no", { status: 500 }));
    const [failing, other] = [await engine.queue(acct.id), await engine.queue(acct.id)];
    await engine.run();
    clock.advance(5_000);
    const retried = await retryDelivery(engine.ctx.db, failing, clock.now());
    expect(retried.ok).toBe(true);
    const notices = await noticesOf(acct.id);
    expect(notices.map((n) => [n.delivery_id, n.resolved_at === null ? null : Number(n.resolved_at)])).toEqual(
      expect.arrayContaining([
        [failing, clock.now()],
        [other, null],
      ]),
    );
    expect((await openNotices(engine.ctx.db, acct.id, 5)).map((n) => n.delivery_id)).toEqual([other]);
  });

  test("a test delivery that fails leaves none", async () => {
    sink = startWebhookSink();
    engine = await openEngine({ config: { delivery: { backoff_seconds: [0], max_attempts: 1 }, billing: { enabled: false } } });
    const acct = await engine.account({ url: sink.url });
    sink.respond(() => new Response("no", { status: 500 }));
    const id = await engine.queue(acct.id, { kind: "test" });
    await engine.run();
    expect((await engine.delivery(id)).status).toBe("failed");
    expect(await noticesOf(acct.id)).toEqual([]);
  });
});
