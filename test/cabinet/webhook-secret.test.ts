import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { alertOf, type CabinetUser, noticeOf, signIn } from "./support.ts";
import { defaultEndpointId } from "../support/endpoints.ts";
import { readEndpointSecret } from "../../src/webhooks/endpoint-secret.ts";

// The webhook page's signing secret (docs/cabinet.md): Rotate shows the new secret once,
// Reveal shows the current one after its confirmation, and no GET page ever carries a secret.

let td: TestDaemon;

beforeAll(async () => {
  td = await startTestDaemon({ config: { rate_limit: { per_key_rps: 1000 } } });
});
afterAll(async () => {
  await td.stop();
});

async function account(): Promise<{ c: TestClient; u: CabinetUser }> {
  const c = await td.client({ credits: 1000 });
  return { c, u: await signIn(td, c.accountId) };
}

/** The secret shown in the page's secret box, if any. */
const shownSecret = (page: string) => /<code id="webhook-secret">([^<]*)<\/code>/.exec(page)?.[1] ?? null;

const currentSecret = async (accountId: string) => (await readEndpointSecret(td.ctx, await defaultEndpointId(td.ctx.db, accountId))).secret;

const GET_PAGES = ["/cabinet/", "/cabinet/keys", "/cabinet/addresses", "/cabinet/webhook", "/cabinet/deliveries", "/cabinet/events", "/cabinet/payments"];

describe("the webhook page's signing secret", () => {
  test("the page offers Rotate and Reveal, both CSRF-protected posts, and shows no secret", async () => {
    const { c, u } = await account();
    const page = await (await u.get("/cabinet/webhook")).text();
    expect(page).toContain('<form method="post" action="/cabinet/webhook/secret/rotate"');
    expect(page).toContain('<form method="post" action="/cabinet/webhook/secret/reveal"');
    expect(page).toContain('<option value="86400" selected>24 hours</option>');
    expect(shownSecret(page)).toBeNull();
    expect(page).not.toContain(c.webhookSecret.slice("whsec_".length));
  });

  test("Rotate shows the new secret once, with the grace period; the next GET shows neither secret", async () => {
    const { c, u } = await account();
    const res = await u.post("/cabinet/webhook/secret/rotate", { grace_seconds: "3600" });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const page = await res.text();
    expect(noticeOf(page)).toBe("Webhook secret rotated.");
    const secret = shownSecret(page);
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(c.webhookSecret);
    expect(secret).toBe(await currentSecret(c.accountId));
    // The browser is shown the GET address, so a reload never posts again.
    expect(page).toContain('data-url="/cabinet/webhook"');

    const after = await (await u.get("/cabinet/webhook")).text();
    expect(shownSecret(after)).toBeNull();
    expect(after).not.toContain((secret as string).slice("whsec_".length));
    expect(after).not.toContain(c.webhookSecret.slice("whsec_".length));
    expect(after).toContain('id="secret-grace"');
    expect(after).toContain("The previous secret also signs every webhook until");
  });

  test("Rotate with the old secret ended at once leaves no grace period to announce", async () => {
    const { u } = await account();
    expect((await u.post("/cabinet/webhook/secret/rotate", { grace_seconds: "0" })).status).toBe(200);
    expect(await (await u.get("/cabinet/webhook")).text()).not.toContain('id="secret-grace"');
  });

  test("Rotate refuses a grace period out of range with the API's message and keeps the secret", async () => {
    const { c, u } = await account();
    const res = await u.post("/cabinet/webhook/secret/rotate", { grace_seconds: "999999" });
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(alertOf(page)).toBe("grace_seconds must be at most 604800");
    expect(shownSecret(page)).toBeNull();
    expect(await currentSecret(c.accountId)).toBe(c.webhookSecret);
  });

  test("Reveal shows the current secret only when its confirmation is ticked", async () => {
    const { c, u } = await account();
    const unconfirmed = await u.post("/cabinet/webhook/secret/reveal", {});
    expect(unconfirmed.status).toBe(400);
    const refused = await unconfirmed.text();
    expect(alertOf(refused)).toBe("confirm must be ticked to show the secret");
    expect(refused).not.toContain(c.webhookSecret.slice("whsec_".length));

    const res = await u.post("/cabinet/webhook/secret/reveal", { confirm: "yes" });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const page = await res.text();
    expect(noticeOf(page)).toBe("Webhook secret shown below.");
    expect(shownSecret(page)).toBe(c.webhookSecret);
  });

  test("without the session's CSRF token neither form shows or changes anything", async () => {
    const { c, u } = await account();
    for (const path of ["/cabinet/webhook/secret/rotate", "/cabinet/webhook/secret/reveal"]) {
      const res = await u.post(path, { confirm: "yes", grace_seconds: "0" }, { csrf: false });
      expect(res.status).toBe(403);
      expect(await res.text()).not.toContain(c.webhookSecret.slice("whsec_".length));
    }
    expect(await currentSecret(c.accountId)).toBe(c.webhookSecret);
  });

  test("without a session the forms answer the signed-out page", async () => {
    const { c } = await account();
    const res = await fetch(`${td.url}/cabinet/webhook/secret/reveal`, { method: "POST", body: new URLSearchParams({ confirm: "yes" }) });
    expect(res.status).toBe(401);
    expect(await res.text()).not.toContain(c.webhookSecret.slice("whsec_".length));
  });

  test("no GET page of the cabinet carries the secret, before or after a rotation", async () => {
    const { c, u } = await account();
    const rotated = shownSecret(await (await u.post("/cabinet/webhook/secret/rotate", { grace_seconds: "600" })).text()) as string;
    for (const path of GET_PAGES) {
      const res = await u.get(path);
      expect(res.status, path).toBe(200);
      const page = await res.text();
      expect(page, path).not.toContain(c.webhookSecret.slice("whsec_".length));
      expect(page, path).not.toContain(rotated.slice("whsec_".length));
    }
  });
});
