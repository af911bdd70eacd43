import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { createClient, type WebhookEvent, type WebhookFailureReason, WebhookVerificationError, verifyWebhook } from "chainwatch/client";
import { until } from "../support/poll.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { type Received, startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";

// verifyWebhook on real deliveries: a daemon (on the real clock, so its timestamps are now) sends
// to a real Bun.serve sink, and every delivery is checked by the SDK and by the standardwebhooks
// package, which must agree.
const WATCHED = "0x00000000000000000000000000000000000000d1";
const PAY_TO = "0x00000000000000000000000000000000000000d2";
const SENDER = "0x1111111111111111111111111111111111111111";
/** Another secret of the right shape, as a rotation's other half. */
const OTHER_SECRET = `whsec_${Buffer.from("another-32-byte-webhook-secret!!").toString("base64")}`;

let td: TestDaemon;
let sink: WebhookSink;
let c: TestClient;
/** One real delivery of each body kind, keyed by `type` (`test` for the Test button's). */
const deliveries = new Map<string, Received>();

beforeAll(async () => {
  sink = startWebhookSink();
  td = await startTestDaemon({ config: { rate_limit: { per_key_rps: 1000 } } });
  c = await td.client({ credits: 100_000 });
  const client = createClient({ baseUrl: td.url, apiKey: c.apiKey, secret: c.secret });
  await client.updateWebhook({ url: sink.url, enabled: true });
  await client.addWatch({ network_slug: "eth", address: WATCHED });
  await client.createPayment({ order_id: "wh-1", network: "eth", address: PAY_TO, amount: "5" });
  const { delivery_id } = await client.testWebhook({ event: "payout", network: "eth" });
  const ingest = await td.ingest({
    network: "eth",
    height: 100,
    hash: "0xd100",
    parent_hash: "0xd099",
    timestamp: 1_763_750_000,
    transactions: [
      { hash: "0xd7a1", from: SENDER, to: WATCHED, value: "1500000000000000000" },
      { hash: "0xd7a2", from: SENDER, to: PAY_TO, value: "1000000000000000000" },
    ],
  });
  expect(ingest.status).toBe(202);
  await until(
    async () => sink.received.length,
    () => {
      for (const r of sink.received) deliveries.set(r.headers["x-webhook-id"] === delivery_id ? "test" : JSON.parse(r.body).type, r);
      return ["test", "payment", "block", "payment_order"].every((k) => deliveries.has(k));
    },
  );
});
afterAll(async () => {
  await td.stop();
  await sink.stop();
});

const KINDS = ["payment", "block", "payment_order", "test"];
const delivery = (kind: string) => deliveries.get(kind) as Received;
const STANDARD = ["webhook-id", "webhook-timestamp", "webhook-signature"];
const OWN = ["x-timestamp", "x-signature"];
/** The delivery's headers without some of them, as a receiver behind a filtering proxy would see them. */
const without = (r: Received, names: string[]) => Object.fromEntries(Object.entries(r.headers).filter(([k]) => !names.includes(k)));
const at = (r: Received, offsetSeconds: number) => new Date((Number(r.headers["webhook-timestamp"]) + offsetSeconds) * 1000);

async function reason(p: Promise<unknown>): Promise<WebhookFailureReason> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(WebhookVerificationError);
  return (e as WebhookVerificationError).reason;
}

describe("verifyWebhook on real deliveries", () => {
  test.each(KINDS)("a %s delivery verifies and answers its body, as standardwebhooks does", async (kind) => {
    const r = delivery(kind);
    const event = await verifyWebhook(new Headers(r.headers), r.body, c.webhookSecret);
    expect(event).toEqual(JSON.parse(r.body));
    expect(new Webhook(c.webhookSecret).verify(r.body, r.headers)).toEqual(event);
  });

  test.each(KINDS)("a %s delivery verifies by X-Timestamp/X-Signature alone, and by the Standard Webhooks headers alone", async (kind) => {
    const r = delivery(kind);
    expect(await verifyWebhook(without(r, STANDARD), r.body, c.webhookSecret)).toEqual(JSON.parse(r.body));
    expect(await verifyWebhook(without(r, OWN), new TextEncoder().encode(r.body), c.webhookSecret)).toEqual(JSON.parse(r.body));
  });

  test("the body comes back typed: `type` tells the kinds apart", async () => {
    const bodies: WebhookEvent[] = await Promise.all(["payment", "block", "payment_order"].map((k) => verifyWebhook(delivery(k).headers, delivery(k).body, c.webhookSecret)));
    const described = bodies.map((e) => {
      switch (e.type) {
        case "payment_order":
          return `${e.order_id} ${e.event} ${e.amount_received}`;
        case "block":
          return `block ${e.block_height} ${e.transactions.join(",")}`;
        default:
          return `${e.type} ${e.direction} ${e.amount} ${e.address}`;
      }
    });
    expect(described).toEqual([`payment in 1.5 ${WATCHED}`, "block 100 0xd7a1,0xd7a2", "wh-1 seen 1"]);
  });

  test("a tampered body is refused under both schemes, as standardwebhooks refuses it", async () => {
    const r = delivery("payment");
    const tampered = r.body.replace('"amount":"1.5"', '"amount":"9.5"');
    expect(tampered).not.toBe(r.body);
    expect(await reason(verifyWebhook(r.headers, tampered, c.webhookSecret))).toBe("invalid_signature");
    expect(await reason(verifyWebhook(without(r, STANDARD), tampered, c.webhookSecret))).toBe("invalid_signature");
    expect(() => new Webhook(c.webhookSecret).verify(tampered, r.headers)).toThrow();
  });

  test("another account's secret is refused", async () => {
    const r = delivery("block");
    expect(await reason(verifyWebhook(r.headers, r.body, OTHER_SECRET))).toBe("invalid_signature");
    expect(await reason(verifyWebhook(without(r, STANDARD), r.body, OTHER_SECRET))).toBe("invalid_signature");
  });

  test("a timestamp more than toleranceSeconds from now is refused, either way; at the bound it passes", async () => {
    const r = delivery("payment");
    for (const headers of [r.headers, without(r, STANDARD)]) {
      expect(await reason(verifyWebhook(headers, r.body, c.webhookSecret, { now: at(r, 301) }))).toBe("stale_timestamp");
      expect(await reason(verifyWebhook(headers, r.body, c.webhookSecret, { now: at(r, -301) }))).toBe("stale_timestamp");
      expect((await verifyWebhook(headers, r.body, c.webhookSecret, { now: at(r, 300) })).type).toBe("payment");
      expect(await reason(verifyWebhook(headers, r.body, c.webhookSecret, { now: at(r, 11), toleranceSeconds: 10 }))).toBe("stale_timestamp");
    }
  });

  test("a timestamp that is not Unix seconds is refused", async () => {
    const r = delivery("payment");
    expect(await reason(verifyWebhook({ ...r.headers, "webhook-timestamp": "soon" }, r.body, c.webhookSecret))).toBe("invalid_timestamp");
    expect(await reason(verifyWebhook({ ...without(r, STANDARD), "x-timestamp": "1e9" }, r.body, c.webhookSecret))).toBe("invalid_timestamp");
  });

  test("a webhook-signature with two v1 entries (a secret being rotated) passes when either matches", async () => {
    const r = delivery("payment_order");
    const other = new Webhook(OTHER_SECRET).sign(r.headers["webhook-id"], at(r, 0), r.body);
    expect(other).toStartWith("v1,");
    for (const signatures of [`${other} ${r.headers["webhook-signature"]}`, `${r.headers["webhook-signature"]} ${other}`]) {
      const headers = { ...r.headers, "webhook-signature": signatures };
      expect(await verifyWebhook(headers, r.body, c.webhookSecret)).toEqual(JSON.parse(r.body));
      expect(await verifyWebhook(headers, r.body, OTHER_SECRET)).toEqual(JSON.parse(r.body));
      expect(new Webhook(c.webhookSecret).verify(r.body, headers)).toEqual(JSON.parse(r.body));
    }
    // Neither entry matching is still a refusal, and so is an entry of another version.
    const wrong = { ...r.headers, "webhook-signature": `${other} v2,${r.headers["webhook-signature"].slice(3)}` };
    expect(await reason(verifyWebhook(wrong, r.body, c.webhookSecret))).toBe("invalid_signature");
    expect(() => new Webhook(c.webhookSecret).verify(r.body, wrong)).toThrow();
  });

  test("a real delivery during a secret rotation verifies with the old secret and with the new one", async () => {
    const rotating = await td.client();
    const client = createClient({ baseUrl: td.url, apiKey: rotating.apiKey, secret: rotating.secret });
    await client.updateWebhook({ url: sink.url, enabled: true });
    const { webhook_secret: newSecret } = await client.rotateWebhookSecret({ grace_seconds: 3600 });
    const { delivery_id } = await client.testWebhook({ event: "block", network: "eth" });
    const r = (await until(async () => sink.received.find((x) => x.headers["x-webhook-id"] === delivery_id), (x) => x !== undefined)) as Received;
    expect(r.headers["webhook-signature"].split(" ").map((entry) => entry.slice(0, 3))).toEqual(["v1,", "v1,"]);
    for (const secret of [rotating.webhookSecret, newSecret]) {
      expect(await verifyWebhook(r.headers, r.body, secret)).toEqual(JSON.parse(r.body));
      expect(new Webhook(secret).verify(r.body, r.headers)).toEqual(JSON.parse(r.body));
    }
    // X-Signature has room for one signature: the new secret's.
    expect(await verifyWebhook(without(r, STANDARD), r.body, newSecret)).toEqual(JSON.parse(r.body));
    expect(await reason(verifyWebhook(without(r, STANDARD), r.body, rotating.webhookSecret))).toBe("invalid_signature");
  });

  test("a delivery with neither set of signature headers is refused", async () => {
    const r = delivery("block");
    expect(await reason(verifyWebhook(without(r, [...STANDARD, ...OWN]), r.body, c.webhookSecret))).toBe("missing_headers");
    expect(await reason(verifyWebhook(without(r, ["webhook-signature", "x-signature"]), r.body, c.webhookSecret))).toBe("missing_headers");
  });

  test("a secret that is not whsec_<base64> is a TypeError, not a verification failure", async () => {
    const r = delivery("block");
    await expect(verifyWebhook(r.headers, r.body, "whsec_!!!")).rejects.toBeInstanceOf(TypeError);
  });
});
