import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { addCredits } from "../../src/accounts/accounts.ts";
import { deliveryPrice } from "../../src/billing/pricing.ts";
import { NoticeList, WebhookHealth } from "../../src/http/openapi/schemas.ts";
import type { Logger } from "../../src/lib/log.ts";
import { rfc3339 } from "../../src/lib/time.ts";
import { signIn } from "../cabinet/support.ts";
import { manualClock } from "../support/clock.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { runCli, until, writeToml } from "./fixtures.ts";
import { block, deliveriesOf, ingest, watchAndHook } from "./recovery-support.ts";

// docs/webhooks.md, "Billing": nothing is held silently. Deliveries an account's credits cannot
// pay wait `paused`; health says `held` with their count, one credits_exhausted notice and one log
// line say it once per hold (not per delivery), the cabinet shows a banner, and adding credits
// sends them and resolves the notice.

type Json = Record<string, any>;
const HOUR = 3_600_000;
const W = "0x7777777777777777777777777777777777777777";

describe("an account whose credits run out (docs/webhooks.md)", () => {
  const clock = manualClock();
  const warnings: { msg: string; fields?: Record<string, unknown> }[] = [];
  const log: Logger = { debug() {}, info() {}, warn: (msg, fields) => void warnings.push({ msg, fields }), error() {} };
  let td: TestDaemon;
  let sink: WebhookSink;
  let c: TestClient;
  let price: number;
  let height = 0;

  const get = async (path: string) => {
    const res = await c.request("GET", path);
    return { status: res.status, body: (await res.json()) as Json };
  };
  const health = async () => {
    const res = await get("/v1/address-watch/webhook/health");
    expect(Value.Check(WebhookHealth, res.body)).toBe(true);
    return res.body;
  };
  const notices = async () => {
    const res = await get("/v1/account/notices");
    expect(Value.Check(NoticeList, res.body)).toBe(true);
    return res.body.notices as Json[];
  };
  const held = () => warnings.filter((w) => w.msg === "webhook deliveries held: credits cannot pay");
  /** Ingests the next block paying W and waits until the account has `paused` deliveries paused. */
  const paymentHeld = async (paused: number) => {
    await ingest(td, block(++height, [W]));
    await until(() => deliveriesOf(td, c.accountId), (ds) => ds.filter((d) => d.status === "paused").length === paused);
  };
  const page = async (path: string) => (await (await signIn(td, c.accountId)).get(path)).text();
  const banner = (html: string) => /<div class="alert err" id="credits-held">(.*?)<\/div>/s.exec(html)?.[1] ?? null;

  beforeAll(async () => {
    td = await startTestDaemon({ clock, log, config: { rate_limit: { per_key_rps: 1000 } } });
    sink = startWebhookSink();
    price = deliveryPrice(td.config, { kind: "event", event_type: "payment", network: "eth" });
    expect(price).toBeGreaterThan(0);
    c = await td.client({ credits: 0 });
    await watchAndHook(c, W, sink.url, { block: false });
  });
  afterAll(async () => {
    await td.stop();
    await sink.stop();
  });

  test("a delivery the balance cannot pay waits: health held with the count, one credits_exhausted notice, one log line", async () => {
    await paymentHeld(1);
    expect(await health()).toEqual({ state: "held", failing_since: null, last_success_at: null, last_error: null, pending: 0, failed: 0, held_no_credits: 1 });
    expect(await notices()).toEqual([
      {
        id: expect.stringMatching(/^ntc_/),
        type: "credits_exhausted",
        created_at: rfc3339(clock.now()),
        message: `Webhook deliveries are held: a payment delivery costs ${price} credits and the balance is 0. Nothing is lost: held deliveries wait and go out once credits are added.`,
        resolved_at: null,
      },
    ]);
    // Logged once the hold's transaction committed.
    await until(async () => held(), (w) => w.length > 0);
    expect(held()).toEqual([{ msg: "webhook deliveries held: credits cannot pay", fields: { account_id: c.accountId, balance: 0, price, event_type: "payment" } }]);
    expect(sink.received.length).toBe(0);
  });

  test("more held deliveries, a free test that succeeds and days of holding: still held, never disabled, still one notice and one line", async () => {
    await paymentHeld(2);
    const queued = await c.request("POST", "/v1/address-watch/webhook/test", { event: "payment", network: "eth" });
    expect(queued.status).toBe(202);
    await sink.waitFor(1);
    expect(sink.received[0].headers["x-webhook-test"]).toBe("true");
    await until(() => deliveriesOf(td, c.accountId), (ds) => ds.some((d) => d.kind === "test" && d.status === "succeeded"));
    // The test's success does not make a held endpoint look healthy.
    expect(await health()).toMatchObject({ state: "held", last_success_at: Math.floor(clock.now() / 1000), held_no_credits: 2 });
    // Past delivery.disable_after_hours: a hold records no attempt, so no run of failures starts.
    clock.advance(200 * HOUR);
    await paymentHeld(3);
    expect(await health()).toMatchObject({ state: "held", failing_since: null, held_no_credits: 3 });
    expect((await get("/v1/address-watch/webhook")).body.enabled).toBe(true);
    expect((await notices()).map((n) => [n.type, n.resolved_at])).toEqual([["credits_exhausted", null]]);
    expect(held().length).toBe(1);
    expect(sink.received.length).toBe(1);
  });

  test("the cabinet's overview and webhook page say so above everything else, and the overview lists the notice", async () => {
    const overview = await page("/cabinet/");
    expect(banner(overview)).toBe(
      "<strong>Deliveries held: out of credits.</strong> 3 webhook deliveries wait because the balance (0 credits) cannot pay for them. Nothing is lost: once the operator adds credits, held deliveries go out.",
    );
    expect(overview).toContain("Webhook deliveries are held: a payment delivery costs");
    expect(banner(await page("/cabinet/webhook"))).toContain("3 webhook deliveries wait");
  });

  test("credits added: the held deliveries go out, the notice is resolved and leaves the overview, health is healthy", async () => {
    clock.advance(60_000);
    const added = await addCredits(td.ctx.db, td.ctx.clock, c.accountId, 3 * price);
    expect(added.ok).toBe(true);
    td.daemon.deps.wakeDelivery();
    await until(() => deliveriesOf(td, c.accountId), (ds) => ds.filter((d) => d.kind === "event").every((d) => d.status === "succeeded"));
    expect(sink.received.length).toBe(4);
    expect(await health()).toMatchObject({ state: "healthy", held_no_credits: 0, pending: 0 });
    expect((await notices()).map((n) => [n.type, n.resolved_at])).toEqual([["credits_exhausted", rfc3339(clock.now())]]);
    const overview = await page("/cabinet/");
    expect(banner(overview)).toBeNull();
    expect(overview).not.toContain("Webhook deliveries are held");
    expect(banner(await page("/cabinet/webhook"))).toBeNull();
  });

  test("when the credits run out again, the new hold raises a new notice and a new log line", async () => {
    await paymentHeld(1);
    expect((await notices()).map((n) => [n.type, n.resolved_at])).toEqual([
      ["credits_exhausted", null],
      ["credits_exhausted", expect.any(String)],
    ]);
    await until(async () => held(), (w) => w.length === 2);
    expect(await health()).toMatchObject({ state: "held", held_no_credits: 1 });
  });
});

describe("accounts create on a plan that bills (docs/cli.md)", () => {
  let dir: string;
  let config: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-credits-cli-"));
    config = writeToml(dir);
    for (const args of [
      ["migrate"],
      ["plans", "set", "shop", "--slots", "5"],
      ["plans", "set", "monthly", "--slots", "5", "--monthly-credits", "1000"],
    ]) {
      expect((await runCli([...args, "--config", config])).code).toBe(0);
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("with billing on and no credits it warns on stderr how to fix it; stdout is the one JSON document", async () => {
    const r = await runCli(["accounts", "create", "broke", "--plan", "shop", "--json", "--config", config]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: "broke", plan: "shop", credits: 0 });
    expect(r.stderr.split("\n").filter((l) => l.includes("warning"))).toEqual([
      "chainwatch: warning: account broke has 0 credits and billing is on: its webhooks will be held (paused; health `held_no_credits`); " +
        "to fix: `chainwatch accounts credit broke --add N`, or pass --credits to accounts create",
    ]);
  });

  test("a plan with monthly credits: the warning says until when", async () => {
    const r = await runCli(["accounts", "create", "monthly-broke", "--plan", "monthly", "--config", config]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      "chainwatch: warning: account monthly-broke has 0 credits and billing is on: its webhooks will be held (paused; health `held_no_credits`) until plan monthly's monthly 1000 credits are granted (within the hour while serve runs);",
    );
  });

  test("with credits, or with billing off, nothing is said", async () => {
    const paid = await runCli(["accounts", "create", "paid", "--plan", "shop", "--credits", "10", "--config", config]);
    expect(paid.code).toBe(0);
    expect(paid.stderr).not.toContain("warning");
    const free = writeToml(mkdtempSync(join(dir, "free-")), ["[billing]", "enabled = false"]);
    expect((await runCli(["migrate", "--config", free])).code).toBe(0);
    expect((await runCli(["plans", "set", "shop", "--slots", "5", "--config", free])).code).toBe(0);
    const unbilled = await runCli(["accounts", "create", "unbilled", "--plan", "shop", "--config", free]);
    expect(unbilled.code).toBe(0);
    expect(unbilled.stderr).not.toContain("warning");
  });
});
