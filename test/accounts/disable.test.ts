import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runCli, writeToml } from "../delivery/fixtures.ts";
import { signIn, signInLink } from "../cabinet/support.ts";
import type { CabinetUser } from "../cabinet/support.ts";
import { signedHeaders, startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { until } from "../support/poll.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { blockMaker, freshAddress, freshTxHash, ingestOk } from "../payments/support.ts";

// `chainwatch accounts disable|enable` against a running daemon (docs/operations.md): the account's
// keys are refused on the signed API and /rpc, its cabinet opens nothing, its deliveries wait
// paused while its events are still stored, and enabling it lets what waited go out. Another
// account beside it goes on throughout.

type Json = Record<string, any>;
let td: TestDaemon;
let toml: string;
let shop: TestClient;
let other: TestClient;
let shopSink: WebhookSink;
let otherSink: WebhookSink;
let session: CabinetUser;
let link: string;
const shopAddress = freshAddress("c");
const otherAddress = freshAddress("d");
const block = blockMaker("eth", 5_000);

async function cli(args: string[]) {
  const r = await runCli([...args, "--config", toml]);
  return { ...r, stderr: r.stderr.replace(/^chainwatch: database .*\n/m, "") };
}
async function json(args: string[]): Promise<Json> {
  const r = await cli([...args, "--json"]);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  return JSON.parse(r.stdout) as Json;
}

async function watchInto(c: TestClient, address: string, sink: WebhookSink) {
  expect((await c.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address })).status).toBe(201);
  expect((await c.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true })).status).toBe(200);
}

const deliveryStatuses = async (accountId: string) =>
  (await td.ctx.db.selectFrom("deliveries").select("status").where("account_id", "=", accountId).execute()).map((d) => d.status);

const rpcCall = (c: TestClient) =>
  fetch(`${td.url}/rpc/eth/${c.apiKey}`, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "eth_blockNumber" }) });

beforeAll(async () => {
  td = await startTestDaemon();
  toml = writeToml(td.dir);
  shopSink = startWebhookSink();
  otherSink = startWebhookSink();
  shop = await td.client({ name: "shop", credits: 1000 });
  other = await td.client({ name: "other", credits: 1000 });
  await watchInto(shop, shopAddress, shopSink);
  await watchInto(other, otherAddress, otherSink);
  session = await signIn(td, shop.accountId);
  link = await signInLink(td, shop.accountId);
});
afterAll(async () => {
  await Promise.all([shopSink.stop(), otherSink.stop()]);
  await td.stop();
});

describe("accounts disable", () => {
  test("shows the account disabled, in show and list, and says so when it was already", async () => {
    // A first request caches the key while the account is enabled.
    expect((await shop.request("GET", "/v1/account")).status).toBe(200);
    const shown = await json(["accounts", "disable", "shop"]);
    expect(shown).toMatchObject({ account_id: shop.accountId, name: "shop", status: "disabled" });
    expect(shown.disabled_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    expect(await json(["accounts", "show", "other"])).toMatchObject({ status: "active", disabled_at: null });
    const { accounts } = await json(["accounts", "list"]);
    // Listed by creation time, then name: the two accounts may share a millisecond, so by name here.
    expect(accounts.map((a: Json) => [a.name, a.status]).sort()).toEqual([
      ["other", "active"],
      ["shop", "disabled"],
    ]);
    const human = await cli(["accounts", "list"]);
    expect(human.stdout.split("\n")[0]).toMatch(/^ACCOUNT_ID\s+NAME\s+STATUS\s+PLAN\s+CREDITS\s+SLOTS$/);
    const again = await cli(["accounts", "disable", shop.accountId, "--json"]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).disabled_at).toBe(shown.disabled_at);
    expect(again.stderr).toBe("chainwatch: account shop was disabled already\n");
  });

  test("refuses its keys on the signed API (403, once the key cache's second is over) and on /rpc; the other account's keys go on", async () => {
    const refused = await until(
      () => shop.request("GET", "/v1/account"),
      (r) => r.status === 403,
    );
    expect(await refused.json()).toEqual({ error: "This account is disabled." });
    expect((await shop.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address: freshAddress("e") })).status).toBe(403);
    const rpc = await rpcCall(shop);
    expect(rpc.status).toBe(403);
    expect(await rpc.json()).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32014, message: "This account is disabled." } });
    expect((await other.request("GET", "/v1/account")).status).toBe(200);
    // A signature made with the wrong secret is still told only that.
    const forged = { ...shop, secret: "f".repeat(64) };
    const bad = await fetch(`${td.url}/v1/account`, { headers: signedHeaders(forged, "GET", "/v1/account") });
    expect([bad.status, await bad.json()]).toEqual([401, { error: "Invalid signature" }]);
  });

  test("stores its events and holds its deliveries paused while the other account's go out", async () => {
    await ingestOk(
      td,
      block([
        { hash: freshTxHash(), from: freshAddress("f"), to: shopAddress, value: "5" },
        { hash: freshTxHash(), from: freshAddress("f"), to: otherAddress, value: "6" },
      ]),
    );
    // The payment and the block event, each paused (the other account's two are out by now).
    await otherSink.waitFor(2);
    expect(await until(() => deliveryStatuses(shop.accountId), (s) => s.length === 2 && s.every((x) => x === "paused"))).toEqual(["paused", "paused"]);
    expect(shopSink.received).toEqual([]);
    const events = await td.ctx.db.selectFrom("events").select("type").where("account_id", "=", shop.accountId).execute();
    expect(events.map((e) => e.type)).toEqual(["payment"]);
  });

  test("opens no cabinet page of a live session and signs nothing in with a valid link, which stays unused", async () => {
    const page = await session.get("/cabinet/");
    expect(page.status).toBe(403);
    expect(await page.text()).toContain("This account is disabled.");
    const asJson = await fetch(`${td.url}/cabinet/`, { headers: { cookie: session.cookie, accept: "application/json" } });
    expect([asJson.status, await asJson.json()]).toEqual([403, { error: "This account is disabled." }]);
    const opened = await fetch(link);
    expect(opened.status).toBe(403);
    expect(await opened.text()).toContain("This account is disabled.");
    const token = new URL(link).searchParams.get("token") as string;
    const posted = await fetch(`${td.url}/cabinet/login`, { method: "POST", body: new URLSearchParams({ token }), redirect: "manual" });
    expect(posted.status).toBe(403);
    expect(posted.headers.get("set-cookie")).toBeNull();
    const used = await td.ctx.db.selectFrom("cabinet_links").select("used_at").where("account_id", "=", shop.accountId).execute();
    // The session's own link was used to sign in; the other one is still unused.
    expect(used.filter((l) => l.used_at === null).length).toBe(1);
  });
});

describe("accounts enable", () => {
  test("lets the held delivery go out, and the keys, the session and the unused link work again", async () => {
    const shown = await json(["accounts", "enable", "shop"]);
    expect(shown).toMatchObject({ status: "active", disabled_at: null });
    const sent = await shopSink.waitFor(2);
    expect(sent.map((r) => JSON.parse(r.body).type).sort()).toEqual(["block", "payment"]);
    expect(await until(() => deliveryStatuses(shop.accountId), (s) => s.every((x) => x === "succeeded"))).toEqual(["succeeded", "succeeded"]);
    expect((await until(() => shop.request("GET", "/v1/account"), (r) => r.status === 200)).status).toBe(200);
    expect((await rpcCall(shop)).status).not.toBe(403);
    expect((await session.get("/cabinet/")).status).toBe(200);
    const token = new URL(link).searchParams.get("token") as string;
    const posted = await fetch(`${td.url}/cabinet/login`, { method: "POST", body: new URLSearchParams({ token }), redirect: "manual" });
    expect(posted.status).toBe(303);
    const again = await cli(["accounts", "enable", "shop"]);
    expect([again.code, again.stderr]).toEqual([0, "chainwatch: account shop was enabled already\n"]);
  });
});
