import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signIn } from "../../cabinet/support.ts";
import { startTestDaemon, type TestDaemon } from "../../support/harness.ts";
import { accountXpub } from "./vectors.ts";

// The cabinet's payments page lists the account's wallets (docs/cabinet.md): network, kind,
// fingerprint, next index and unused tail; never the key.

let td: TestDaemon;
beforeAll(async () => {
  td = await startTestDaemon();
});
afterAll(async () => {
  await td.stop();
});

describe("the cabinet's payments page", () => {
  test("lists the account's wallets without their keys, marks a tail past the gap limit, and names an order's index", async () => {
    const c = await td.client();
    const u = await signIn(td, c.accountId);
    expect(await (await u.get("/cabinet/payments")).text()).toContain("No payment wallets.");
    const key = accountXpub("m/44'/60'/0'");
    expect((await c.request("PUT", "/v1/payments/wallets/eth", { key, gap_limit: 2 })).status).toBe(200);
    let last = "";
    for (let i = 0; i < 3; i++) last = ((await (await c.request("POST", "/v1/payments", { order_id: `o-${i}`, network: "eth", amount: "1" })).json()) as { payment_id: string }).payment_id;

    const page = await (await u.get("/cabinet/payments")).text();
    expect(page).toContain("<h2 id=\"wallets-h\">Wallets</h2>");
    expect(page).toContain("<tr><td>eth</td><td>bip44</td><td><code>60b68b69</code></td><td>3</td><td>3 <strong>(past the gap limit of 2)</strong></td></tr>");
    expect(page).not.toContain(key);
    expect(await (await u.get(`/cabinet/payments/${last}`)).text()).toContain("(index 2 of the payment wallet)");

    const stranger = await signIn(td, (await td.client()).accountId);
    expect(await (await stranger.get("/cabinet/payments")).text()).not.toContain("60b68b69");
  });
});
