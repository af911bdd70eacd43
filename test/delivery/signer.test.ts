import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { newWebhookSecret } from "../../src/delivery/signer.ts";
import { webhookHeaders, webhookKey } from "../../src/delivery/signer.ts";

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const body = '{"type":"payment","amount":"1.5"}';
const ts = 1_763_750_000;

describe("webhook signing (docs/webhooks.md)", () => {
  test("the key is the base64-decoded part of the secret after whsec_", () => {
    expect(webhookKey(secret)).toEqual(Buffer.from("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "base64"));
  });

  test("sends exactly the documented headers for a normal delivery", () => {
    const h = webhookHeaders({ id: "dlv_1", body, timestampSec: ts, key: webhookKey(secret), userAgent: "chainwatch/0.1.0" });
    const key = Buffer.from(secret.slice(6), "base64");
    expect(h).toEqual({
      "Content-Type": "application/json",
      "User-Agent": "chainwatch/0.1.0",
      "X-Timestamp": String(ts),
      "X-Signature": createHmac("sha256", key).update(`${ts}.${body}`).digest("hex"),
      "X-Webhook-Id": "dlv_1",
      "webhook-id": "dlv_1",
      "webhook-timestamp": String(ts),
      "webhook-signature": `v1,${createHmac("sha256", key).update(`dlv_1.${ts}.${body}`).digest("base64")}`,
    });
    expect(h["X-Signature"]).toMatch(/^[0-9a-f]{64}$/);
  });

  test("marks a test delivery with X-Webhook-Test: true", () => {
    const h = webhookHeaders({ id: "dlv_1", body, timestampSec: ts, key: webhookKey(secret), userAgent: "x", test: true });
    expect(h["X-Webhook-Test"]).toBe("true");
  });

  test("the Standard Webhooks reference verifier accepts the signature of a freshly made secret", () => {
    const fresh = newWebhookSecret();
    const now = Math.floor(Date.now() / 1000);
    const h = webhookHeaders({ id: "dlv_abc", body, timestampSec: now, key: webhookKey(fresh), userAgent: "x" });
    expect(new Webhook(fresh).verify(body, h)).toEqual(JSON.parse(body));
  });

  test("the reference verifier rejects a body changed by one byte", () => {
    const now = Math.floor(Date.now() / 1000);
    const h = webhookHeaders({ id: "dlv_abc", body, timestampSec: now, key: webhookKey(secret), userAgent: "x" });
    expect(() => new Webhook(secret).verify(body.replace("1.5", "1.6"), h)).toThrow();
  });
});
