import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { newWebhookSecret, previousSecretSigns, webhookHeaders, webhookKey } from "../../src/delivery/signer.ts";

// Signing while a rotated-out secret still signs beside the current one (docs/webhooks.md).

const oldSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const newSecret = newWebhookSecret();
const body = '{"type":"payment","amount":"1.5"}';

const standard = (secret: string, id: string, ts: number) => `v1,${createHmac("sha256", webhookKey(secret)).update(`${id}.${ts}.${body}`).digest("base64")}`;

describe("signing during a rotation's grace period", () => {
  test("webhook-signature lists the previous secret's signature, then the current one's; X-Signature is the current one's", () => {
    const ts = 1_763_750_000;
    const h = webhookHeaders({ id: "dlv_1", body, timestampSec: ts, key: webhookKey(newSecret), previousKey: webhookKey(oldSecret), userAgent: "x" });
    expect(h["webhook-signature"]).toBe(`${standard(oldSecret, "dlv_1", ts)} ${standard(newSecret, "dlv_1", ts)}`);
    expect(h["X-Signature"]).toBe(createHmac("sha256", webhookKey(newSecret)).update(`${ts}.${body}`).digest("hex"));
  });

  test("the reference verifier accepts the delivery under either secret, and not under a third", () => {
    const now = Math.floor(Date.now() / 1000);
    const h = webhookHeaders({ id: "dlv_2", body, timestampSec: now, key: webhookKey(newSecret), previousKey: webhookKey(oldSecret), userAgent: "x" });
    expect(new Webhook(oldSecret).verify(body, h)).toEqual(JSON.parse(body));
    expect(new Webhook(newSecret).verify(body, h)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, h)).toThrow();
  });

  test("without a previous key there is one signature", () => {
    const h = webhookHeaders({ id: "dlv_3", body, timestampSec: 1, key: webhookKey(newSecret), previousKey: null, userAgent: "x" });
    expect(h["webhook-signature"]).toBe(standard(newSecret, "dlv_3", 1));
  });

  test.each([
    ["v1.sealed", 2000, 1999, true],
    ["v1.sealed", 2000, 2000, false],
    ["v1.sealed", 2000, 2001, false],
    ["v1.sealed", null, 0, false],
    [null, 2000, 0, false],
  ])("a previous secret %p expiring at %p signs at %p: %p", (sealed, expiresAt, now, signs) => {
    expect(previousSecretSigns(sealed, expiresAt, now)).toBe(signs);
  });
});
