import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { Webhook } from "standardwebhooks";
import { RotatedWebhookSecret } from "../../src/http/openapi/schemas.ts";
import { jsonLogger } from "../../src/lib/log.ts";
import { rfc3339 } from "../../src/lib/time.ts";
import { manualClock } from "../support/clock.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { until } from "../support/poll.ts";
import { type Received, startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { expectedXSignature } from "../delivery/fixtures.ts";
import { block, ingest, watchAndHook } from "../delivery/recovery-support.ts";

// Webhook secret rotation through the signed API: the new secret answered once, both secrets
// signing every delivery (events, tests, replays) during the grace period, the new one alone after.

const ROTATE = "/v1/address-watch/webhook/secret/rotate";

let td: TestDaemon;
let sink: WebhookSink;
const logLines: string[] = [];
// Starts at the real time: the reference verifier checks webhook-timestamp against the real clock
// (within 5 minutes), so the grace periods moved through here stay well short of that.
const clock = manualClock(Date.now());
let height = 100;

beforeAll(async () => {
  sink = startWebhookSink();
  td = await startTestDaemon({
    clock,
    log: jsonLogger((line) => void logLines.push(line), () => clock.now(), "debug"),
    config: { rate_limit: { per_key_rps: 1000 }, billing: { enabled: false } },
  });
});
afterAll(async () => {
  await td.stop();
  await sink.stop();
});

let addressNo = 0;
/** An account watching an address of its own on eth, its webhook pointed at the sink. */
async function hookedClient(): Promise<TestClient & { address: string }> {
  const c = await td.client();
  const address = `0x${(++addressNo).toString(16).padStart(40, "a")}`;
  await watchAndHook(c, address, sink.url);
  return { ...c, address };
}

async function rotate(c: TestClient, body?: unknown) {
  const res = await c.request("POST", ROTATE, body);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Queues a test delivery and returns what the sink received for it. */
async function testDelivery(c: TestClient): Promise<Received> {
  const res = await c.request("POST", "/v1/address-watch/webhook/test", { event: "payment", network: "eth" });
  expect(res.status).toBe(202);
  const { delivery_id } = (await res.json()) as { delivery_id: string };
  return receivedFor(delivery_id);
}

async function receivedFor(deliveryId: string): Promise<Received> {
  const [r] = await until(async () => sink.received.filter((x) => x.headers["webhook-id"] === deliveryId), (rs) => rs.length === 1);
  return r;
}

/** Whether the reference Standard Webhooks verifier accepts the request under `secret`. */
function verifies(secret: string, r: Received): boolean {
  try {
    new Webhook(secret).verify(r.body, {
      "webhook-id": r.headers["webhook-id"],
      "webhook-timestamp": r.headers["webhook-timestamp"],
      "webhook-signature": r.headers["webhook-signature"],
    });
    return true;
  } catch {
    return false;
  }
}

/** What a receiver sees of a delivery's signatures, checked under the old and the new secret. */
function signatures(r: Received, oldSecret: string, newSecret: string) {
  return {
    standard: r.headers["webhook-signature"].split(" ").length,
    oldVerifies: verifies(oldSecret, r),
    newVerifies: verifies(newSecret, r),
    xSignatureByNew: r.headers["x-signature"] === expectedXSignature(newSecret, r.headers["x-timestamp"], r.body),
  };
}

/** The account's webhook secrets as stored (its default endpoint's row), sealed. */
const storedSecrets = (accountId: string) =>
  td.ctx.db
    .selectFrom("webhook_endpoints")
    .select(["secret_enc as webhook_secret_enc", "previous_secret_enc as webhook_previous_secret_enc", "previous_secret_expires_at"])
    .where("account_id", "=", accountId)
    .orderBy("id")
    .executeTakeFirstOrThrow();

describe("POST /v1/address-watch/webhook/secret/rotate", () => {
  test("answers the new secret once and when the previous one stops signing, in the documented shape", async () => {
    const c = await td.client();
    const now = clock.now();
    const res = await rotate(c, { grace_seconds: 3600 });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["webhook_secret", "previous_expires_at"]);
    expect(res.body.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(res.body.webhook_secret).not.toBe(c.webhookSecret);
    expect(res.body.previous_expires_at).toBe(rfc3339(now + 3_600_000));
    expect([...Value.Errors(RotatedWebhookSecret, res.body)]).toEqual([]);
    // Sealed at rest, both of them: the row holds neither secret in the clear.
    const row = await storedSecrets(c.accountId);
    expect(td.ctx.box.open(row.webhook_secret_enc)).toBe(res.body.webhook_secret as string);
    expect(td.ctx.box.open(row.webhook_previous_secret_enc as string)).toBe(c.webhookSecret);
    expect(JSON.stringify(row)).not.toContain(c.webhookSecret.slice(6));
    expect(JSON.stringify(row)).not.toContain((res.body.webhook_secret as string).slice(6));
  });

  test("with no body or an empty one, the previous secret signs for a day", async () => {
    const c = await td.client();
    const now = clock.now();
    expect((await rotate(c)).body.previous_expires_at).toBe(rfc3339(now + 86_400_000));
    expect((await rotate(c, {})).body.previous_expires_at).toBe(rfc3339(now + 86_400_000));
  });

  test.each([
    [{ grace_seconds: -1 }, "grace_seconds must be at least 0"],
    [{ grace_seconds: 604_801 }, "grace_seconds must be at most 604800"],
    [{ grace_seconds: 1.5 }, "grace_seconds must be an integer"],
    [{ grace_seconds: "3600" }, "grace_seconds must be an integer"],
    [{ grace: 3600 }, "grace is not a known field"],
    [[], "body must be an object"],
  ])("refuses %j with 400 naming the field, and keeps the secret", async (body, error) => {
    const c = await td.client();
    const before = await storedSecrets(c.accountId);
    const res = await rotate(c, body);
    expect(res).toEqual({ status: 400, body: { error } });
    const after = await storedSecrets(c.accountId);
    expect(after).toEqual(before);
  });

  test("takes the signed-request checks like every /v1 route", async () => {
    const res = await fetch(`${td.url}${ROTATE}`, { method: "POST", body: "{}", headers: { "Content-Type": "application/json" } });
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 401, body: { error: "Missing X-Api-Key" } });
  });
});

describe("deliveries during and after the grace period", () => {
  test("an event, a test and a replay each verify under the old and the new secret; X-Signature is by the new one", async () => {
    const c = await hookedClient();
    const rotated = await rotate(c, { grace_seconds: 120 });
    const newSecret = rotated.body.webhook_secret as string;
    const during = { standard: 2, oldVerifies: true, newVerifies: true, xSignatureByNew: true };

    await ingest(td, block(++height, [c.address]));
    const event = await until(
      () => td.ctx.db.selectFrom("deliveries").select("id").where("account_id", "=", c.accountId).where("kind", "=", "event").where("event_type", "=", "payment").execute(),
      (rows) => rows.length === 1,
    );
    const eventReceived = await receivedFor(event[0].id);
    expect(signatures(eventReceived, c.webhookSecret, newSecret)).toEqual(during);
    // The old secret's signature comes first, as `v1,<old> v1,<new>`.
    const [first, second] = eventReceived.headers["webhook-signature"].split(" ");
    expect(first).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(second).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(c.webhookSecret).sign(eventReceived.headers["webhook-id"], new Date(Number(eventReceived.headers["webhook-timestamp"]) * 1000), eventReceived.body)).toBe(first);

    const testReceived = await testDelivery(c);
    expect(testReceived.headers["x-webhook-test"]).toBe("true");
    expect(signatures(testReceived, c.webhookSecret, newSecret)).toEqual(during);

    const replay = await c.request("POST", "/v1/address-watch/events/replay", { since: Math.floor(clock.now() / 1000) - 60, types: ["payment"] });
    expect(replay.status).toBe(202);
    const replayed = await until(
      () => td.ctx.db.selectFrom("deliveries").select("id").where("account_id", "=", c.accountId).where("replay", "=", 1).execute(),
      (rows) => rows.length === 1,
    );
    const replayReceived = await receivedFor(replayed[0].id);
    expect(replayReceived.headers["x-webhook-replay"]).toBe("true");
    expect(signatures(replayReceived, c.webhookSecret, newSecret)).toEqual(during);

    // The grace period ends: only the new secret signs, with a single signature.
    clock.advance(120_000);
    const after = { standard: 1, oldVerifies: false, newVerifies: true, xSignatureByNew: true };
    expect(signatures(await testDelivery(c), c.webhookSecret, newSecret)).toEqual(after);
    await ingest(td, block(++height, [c.address]));
    const events = await until(
      () => td.ctx.db.selectFrom("deliveries").select("id").where("account_id", "=", c.accountId).where("kind", "=", "event").where("event_type", "=", "payment").where("replay", "=", 0).orderBy("created_at").execute(),
      (rows) => rows.length === 2,
    );
    expect(signatures(await receivedFor(events[1].id), c.webhookSecret, newSecret)).toEqual(after);
  });

  test("grace_seconds 0 ends the old secret at once", async () => {
    const c = await hookedClient();
    const now = clock.now();
    const rotated = await rotate(c, { grace_seconds: 0 });
    expect(rotated).toEqual({ status: 200, body: { webhook_secret: expect.stringMatching(/^whsec_/), previous_expires_at: rfc3339(now) } });
    const r = await testDelivery(c);
    expect(signatures(r, c.webhookSecret, rotated.body.webhook_secret as string)).toEqual({ standard: 1, oldVerifies: false, newVerifies: true, xSignatureByNew: true });
  });

  test("a second rotation within the grace period ends the first secret: the last two sign", async () => {
    const c = await hookedClient();
    const second = (await rotate(c, { grace_seconds: 600 })).body.webhook_secret as string;
    const third = (await rotate(c, { grace_seconds: 600 })).body.webhook_secret as string;
    const r = await testDelivery(c);
    expect(r.headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect({ first: verifies(c.webhookSecret, r), second: verifies(second, r), third: verifies(third, r) }).toEqual({ first: false, second: true, third: true });
    expect(r.headers["x-signature"]).toBe(expectedXSignature(third, r.headers["x-timestamp"], r.body));
  });

  test("no secret, old or new, is ever written to the daemon's log", async () => {
    const c = await hookedClient();
    const rotated = await rotate(c, { grace_seconds: 60 });
    await testDelivery(c);
    const log = logLines.join("\n");
    expect(logLines.length).toBeGreaterThan(0);
    for (const secret of [c.webhookSecret, rotated.body.webhook_secret as string]) {
      expect(log).not.toContain(secret.slice("whsec_".length));
    }
  });
});
