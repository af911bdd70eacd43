import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addCredits } from "../../src/accounts/accounts.ts";
import { recordUsage } from "../../src/billing/usage.ts";
import { addWatches } from "../../src/watch/watches.ts";
import { manualClock } from "../support/clock.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { setDefaultEndpoint } from "../support/endpoints.ts";

// 2026-11-21 23:59:59.999 UTC: the last instant of a day, so "today" is easy to get wrong.
const NOW = Date.UTC(2026, 10, 21, 23, 59, 59, 999);
const DAY = 86_400_000;
const clock = manualClock(NOW);
let td: TestDaemon;

beforeAll(async () => {
  td = await startTestDaemon({ clock });
});
afterAll(async () => {
  await td.stop();
});

async function get(client: TestClient, path: string) {
  const res = await client.request("GET", path);
  return { status: res.status, body: (await res.json()) as any };
}

describe("GET /v1/account", () => {
  test("answers the plan and usage snapshot with exactly the documented fields", async () => {
    const c = await td.client({ name: "snapshot", slots: 3, credits: 500 });
    await recordUsage(td.ctx.db, c.accountId, NOW, { credits: 70, deliveries: 1 });
    await recordUsage(td.ctx.db, c.accountId, NOW - DAY, { credits: 5 });
    expect(await get(c, "/v1/account")).toEqual({
      status: 200,
      body: {
        account_id: c.accountId,
        name: "snapshot",
        environment: "production",
        plan: { name: "plan-snapshot", address_slots: 3, rpc_rps: 25, monthly_credits: 0 },
        credits: { balance: 500, spent_today: 70 },
        address_slots: { used: 0, limit: 3 },
      },
    });
  });

  test("spent_today turns over at midnight UTC, even within the second a snapshot is kept", async () => {
    const c = await td.client({ credits: 500 });
    await recordUsage(td.ctx.db, c.accountId, NOW, { credits: 9 });
    expect((await get(c, "/v1/account")).body.credits.spent_today).toBe(9);
    clock.set(NOW + 1);
    try {
      expect((await get(c, "/v1/account")).body.credits.spent_today).toBe(0);
    } finally {
      clock.set(NOW);
    }
  });

  test("the API document says plan.rpc_rps limits the JSON-RPC endpoint, not this API", async () => {
    const doc = (await (await fetch(`${td.url}/openapi/json`)).json()) as any;
    expect(doc.paths["/v1/account"].get.description).toStartWith(
      "`plan.rpc_rps` is the plan's limit on the JSON-RPC endpoint (POST /rpc/{network}), in calls per second; it does not limit this signed API",
    );
  });

  test("counts watched addresses as used slots", async () => {
    const c = await td.client({ slots: 5 });
    // Written as another process (the CLI's `watches add`) writes them.
    const added = await addWatches(td.ctx.db, {
      accountId: c.accountId,
      items: [
        { network: "eth", address: "0x00000000000000000000000000000000000000a1" },
        { network: "btc", address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq" },
      ],
      now: NOW,
    });
    expect(added.map((a) => a.ok && a.created)).toEqual([true, true]);
    const res = await get(c, "/v1/account");
    expect(res.body.address_slots).toEqual({ used: 2, limit: 5 });
  });

  test("shows a watch added through the API at once, and credits added from outside within a second", async () => {
    const c = await td.client({ slots: 5, credits: 100 });
    expect((await get(c, "/v1/account")).body.address_slots).toEqual({ used: 0, limit: 5 });
    const add = await c.request("POST", "/v1/address-watch/addresses", {
      network_slug: "eth",
      address: "0x00000000000000000000000000000000000000b7",
    });
    expect(add.status).toBe(201);
    expect((await get(c, "/v1/account")).body.address_slots).toEqual({ used: 1, limit: 5 });
    // Another writer (the CLI's `accounts credit`) changes the row behind the daemon's back.
    await addCredits(td.ctx.db, clock, c.accountId, 50);
    expect((await get(c, "/v1/account")).body.credits.balance).toBe(100);
    clock.advance(1000);
    try {
      expect((await get(c, "/v1/account")).body.credits.balance).toBe(150);
    } finally {
      clock.set(NOW); // the other tests of this file live on the last millisecond of the day
    }
  });

  test("reports the configured environment", async () => {
    const sandbox = await startTestDaemon({ clock, config: { environment: "sandbox" } });
    try {
      const c = await sandbox.client();
      expect((await get(c, "/v1/account")).body.environment).toBe("sandbox");
    } finally {
      await sandbox.stop();
    }
  });
});

describe("GET /v1/account/usage", () => {
  test("defaults to 30 days, oldest first, ending today (UTC), zero-filled", async () => {
    const c = await td.client();
    const res = await get(c, "/v1/account/usage");
    expect(res.status).toBe(200);
    expect(res.body.days).toBe(30);
    expect(res.body.series.length).toBe(30);
    expect(res.body.series[0]).toEqual({ date: "2026-10-23", credits: 0, deliveries: 0, events: 0, rpc_calls: 0 });
    expect(res.body.series[29]).toEqual({ date: "2026-11-21", credits: 0, deliveries: 0, events: 0, rpc_calls: 0 });
    const dates = res.body.series.map((p: { date: string }) => p.date);
    expect([...dates].sort()).toEqual(dates);
    expect(new Set(dates).size).toBe(30);
  });

  test("days=1 gives exactly today's entry", async () => {
    const c = await td.client();
    expect(await get(c, "/v1/account/usage?days=1")).toEqual({
      status: 200,
      body: { days: 1, series: [{ date: "2026-11-21", credits: 0, deliveries: 0, events: 0, rpc_calls: 0 }] },
    });
  });

  test("days=90 is accepted and spans 90 days", async () => {
    const c = await td.client();
    const res = await get(c, "/v1/account/usage?days=90");
    expect(res.status).toBe(200);
    expect(res.body.series.length).toBe(90);
    expect(res.body.series[0].date).toBe("2026-08-24");
    expect(res.body.series[89].date).toBe("2026-11-21");
  });

  test("a recorded usage row shows up on its own day and nowhere else", async () => {
    const c = await td.client();
    await recordUsage(td.ctx.db, c.accountId, NOW - 2 * DAY, { credits: 150, deliveries: 3, events: 4 });
    await recordUsage(td.ctx.db, c.accountId, NOW - 2 * DAY, { credits: 50, deliveries: 1 });
    await recordUsage(td.ctx.db, c.accountId, NOW, { events: 1 });
    // Outside the window: must not leak into the first day.
    await recordUsage(td.ctx.db, c.accountId, NOW - 3 * DAY, { credits: 999 });
    expect(await get(c, "/v1/account/usage?days=3")).toEqual({
      status: 200,
      body: {
        days: 3,
        series: [
          { date: "2026-11-19", credits: 200, deliveries: 4, events: 4, rpc_calls: 0 },
          { date: "2026-11-20", credits: 0, deliveries: 0, events: 0, rpc_calls: 0 },
          { date: "2026-11-21", credits: 0, deliveries: 0, events: 1, rpc_calls: 0 },
        ],
      },
    });
  });

  test("another account's usage never shows", async () => {
    const mine = await td.client();
    const theirs = await td.client();
    await recordUsage(td.ctx.db, theirs.accountId, NOW, { credits: 10 });
    expect((await get(mine, "/v1/account/usage?days=1")).body.series[0].credits).toBe(0);
  });

  test("the day turns over at midnight UTC", async () => {
    const c = await td.client();
    clock.set(NOW + 1);
    try {
      const res = await get(c, "/v1/account/usage?days=1");
      expect(res.body.series[0].date).toBe("2026-11-22");
    } finally {
      clock.set(NOW);
    }
  });

  test.each(["0", "91", "abc", "1.5", "-1", "1e1", "030x"])("days=%s is refused with 400 naming days", async (days) => {
    const c = await td.client();
    expect(await get(c, `/v1/account/usage?days=${days}`)).toEqual({
      status: 400,
      body: { error: "days must be an integer from 1 to 90" },
    });
  });
});

describe("GET /v1/endpoints", () => {
  test("lists the six default networks, none followed and none behind /rpc", async () => {
    const c = await td.client();
    expect(await get(c, "/v1/endpoints")).toEqual({
      status: 200,
      body: {
        endpoints: [
          { network: "eth", family: "evm", decimals: 18, confirmations: 12, blocks_from: "ingest", rpc: false },
          { network: "bsc", family: "evm", decimals: 18, confirmations: 15, blocks_from: "ingest", rpc: false },
          { network: "polygon", family: "evm", decimals: 18, confirmations: 64, blocks_from: "ingest", rpc: false },
          { network: "btc", family: "btc", decimals: 8, confirmations: 2, blocks_from: "ingest", rpc: false },
          { network: "tron", family: "tron", decimals: 6, confirmations: 19, blocks_from: "ingest", rpc: false },
          { network: "sol", family: "solana", decimals: 9, confirmations: 32, blocks_from: "ingest", rpc: false },
        ],
      },
    });
  });

  test("says which networks a follower reads and which /rpc serves", async () => {
    // Nothing listens on port 1: the follower only has to exist, not to read anything.
    const extra = await startTestDaemon({
      clock,
      config: {
        networks: {
          base: { family: "evm", confirmations: 3 },
          dev: { family: "evm", confirmations: 1, rpc_urls: ["http://127.0.0.1:1"], follow: true },
          proxied: { family: "evm", confirmations: 2, rpc_urls: ["http://127.0.0.1:1"] },
          ltc: { family: "btc", decimals: 8, confirmations: 6, rpc_urls: ["http://127.0.0.1:1"], follow: true, bech32_hrp: "ltc", p2pkh_version: 48, p2sh_version: 50 },
        },
      },
    });
    try {
      const c = await extra.client();
      const res = await get(c, "/v1/endpoints");
      expect(res.body.endpoints.length).toBe(10);
      expect(res.body.endpoints.slice(6)).toEqual([
        { network: "base", family: "evm", decimals: 18, confirmations: 3, blocks_from: "ingest", rpc: false },
        { network: "dev", family: "evm", decimals: 18, confirmations: 1, blocks_from: "follower", rpc: true },
        { network: "proxied", family: "evm", decimals: 18, confirmations: 2, blocks_from: "ingest", rpc: true },
        // /rpc forwards EVM calls only: a btc node's rpc_urls feed its follower and nothing else.
        { network: "ltc", family: "btc", decimals: 8, confirmations: 6, blocks_from: "follower", rpc: false },
      ]);
    } finally {
      await extra.stop();
    }
  });
});

describe("GET /v1/address-watch/account", () => {
  test("answers slots, webhook state and the event count", async () => {
    const c = await td.client({ slots: 4 });
    expect(await get(c, "/v1/address-watch/account")).toEqual({
      status: 200,
      body: { address_slots: { used: 0, limit: 4 }, webhook: { url: null, enabled: false }, events_total: 0 },
    });
  });

  test("reflects a configured webhook", async () => {
    const c = await td.client({ slots: 1 });
    await setDefaultEndpoint(td.ctx.db, c.accountId, { url: "https://hooks.example.com/cw", enabled: true });
    expect((await get(c, "/v1/address-watch/account")).body.webhook).toEqual({ url: "https://hooks.example.com/cw", enabled: true });
  });
});
