import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { alertOf, type CabinetUser, noticeOf, signIn } from "./support.ts";

// The cabinet's webhook form carries the delivery rate limit (docs/cabinet.md), with the
// rules of PUT /v1/address-watch/webhook's "delivery": {"max_rps": N}.

let td: TestDaemon;

beforeAll(async () => {
  td = await startTestDaemon({ config: { delivery: { max_rps: 12 } } });
});
afterAll(async () => {
  await td.stop();
});

async function account(): Promise<{ c: TestClient; u: CabinetUser }> {
  const c = await td.client({ credits: 1000 });
  return { c, u: await signIn(td, c.accountId) };
}

const limitOf = async (c: TestClient) => ((await (await c.request("GET", "/v1/address-watch/webhook")).json()) as { delivery: { max_rps: number } }).delivery.max_rps;
const fieldOf = (page: string) => /<input type="number" id="wh-maxrps" name="max_rps" min="0" max="10000" value="([^"]*)">/.exec(page)?.[1];

describe("the webhook form's delivery rate limit", () => {
  test("shows the limit in force: the config's until the account sets its own", async () => {
    const { u } = await account();
    const page = await (await u.get("/cabinet/webhook")).text();
    expect(page).toContain('<label for="wh-maxrps">');
    expect(fieldOf(page)).toBe("12");
  });

  test("saving the form stores the limit the API then shows; a blank field keeps it", async () => {
    const { c, u } = await account();
    const saved = await u.post("/cabinet/webhook", { url: "https://93.184.216.34/h", enabled: "true", payment: "true", max_rps: "25" });
    expect(saved.status).toBe(200);
    expect(noticeOf(await saved.text())).toBe("Webhook saved.");
    expect(await limitOf(c)).toBe(25);
    expect(fieldOf(await (await u.get("/cabinet/webhook")).text())).toBe("25");
    await u.post("/cabinet/webhook", { url: "https://93.184.216.34/h", enabled: "true", payment: "true", max_rps: " " });
    expect(await limitOf(c)).toBe(25);
  });

  test("a value out of range is refused with the API's message and shown as typed", async () => {
    const { c, u } = await account();
    const res = await u.post("/cabinet/webhook", { url: "https://93.184.216.34/h", enabled: "true", max_rps: "20000" });
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(alertOf(page)).toBe("delivery.max_rps must be at most 10000");
    expect(fieldOf(page)).toBe("20000");
    expect(await limitOf(c)).toBe(12);
  });
});
