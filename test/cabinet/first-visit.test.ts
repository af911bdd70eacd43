import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createAccount } from "../../src/accounts/accounts.ts";
import { FAVICON_SVG } from "../../src/cabinet/assets.ts";
import { startTestDaemon, type TestDaemon } from "../support/harness.ts";
import { alertOf, signIn } from "./support.ts";

// What a browser meets on its first visit: the tab icon, and on a free-plan account the reason
// nothing can be watched yet.
let td: TestDaemon;

beforeAll(async () => {
  td = await startTestDaemon({ config: { cabinet: { enabled: true } } });
});
afterAll(async () => {
  await td.stop();
});

describe("the favicon", () => {
  test("every page names /cabinet/favicon.svg, which is an SVG served from inside the binary", async () => {
    const signedOut = await (await fetch(`${td.url}/cabinet/keys`)).text();
    expect(signedOut).toContain('<link rel="icon" href="/cabinet/favicon.svg" type="image/svg+xml">');
    const res = await fetch(`${td.url}/cabinet/favicon.svg`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
    expect(res.headers.get("cache-control")).toBe("public, max-age=86400");
    expect(await res.text()).toBe(FAVICON_SVG);
    expect(FAVICON_SVG).toStartWith('<svg xmlns="http://www.w3.org/2000/svg"');
  });

  test("/favicon.ico, which browsers ask of every server, answers 204 instead of 404", async () => {
    const res = await fetch(`${td.url}/favicon.ico`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
  });
});

describe("an account on the free plan", () => {
  test("its addresses page says the plan has 0 slots and who can change that; adding still shows the API's own message", async () => {
    const created = await createAccount(td.ctx, { name: "freebie" });
    if (!created.ok) throw new Error(created.error);
    const u = await signIn(td, created.account.id);
    const page = await (await u.get("/cabinet/addresses")).text();
    expect(page).toContain(
      '<p id="no-slots">The free plan has 0 address slots, so this account cannot watch addresses yet: ask the operator of this chainwatch to move it to a plan with slots.</p>',
    );
    const res = await u.post("/cabinet/addresses", { network_slug: "eth", address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed" });
    expect(res.status).toBe(403);
    const refused = await res.text();
    expect(alertOf(refused)).toBe("Address slot limit reached.");
    expect(refused).toContain('<p id="no-slots">The free plan has 0 address slots');
  });

  test("an account with slots sees no such line", async () => {
    const c = await td.client({ slots: 2 });
    const u = await signIn(td, c.accountId);
    expect(await (await u.get("/cabinet/addresses")).text()).not.toContain('id="no-slots"');
  });
});
