import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signIn, signInLink } from "../cabinet/support.ts";
import { runCli, writeToml } from "../delivery/fixtures.ts";
import { blockMaker, createOrder, freshAddress, freshTxHash, ingestOk, readOrder } from "../payments/support.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { until } from "../support/poll.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import type { DB } from "../../src/db/schema.ts";

// `chainwatch accounts delete --purge` (docs/operations.md) on a populated account, on SQLite and
// on PostgreSQL alike: every row of the account goes, in every table, and every other row of the
// database stays exactly as it was. Two accounts are populated the same way; one is purged.

type Json = Record<string, any>;
type Row = Record<string, unknown>;
let td: TestDaemon;
let toml: string;
let sink: WebhookSink;
let gone: TestClient;
let kept: TestClient;
const block = blockMaker("eth", 7_000);
// The account-level xpub of the BIP-39 test phrase "abandon … about" (m/44'/60'/0').
const XPUB = "xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt";

// Every table of the schema, listed by hand so a new one makes this test think about it.
const TABLES: (keyof DB)[] = [
  "plans",
  "accounts",
  "api_keys",
  "usage_daily",
  "credit_grants",
  "credit_leases",
  "watches",
  "watch_counts",
  "blocks",
  "events",
  "block_subscriptions",
  "deliveries",
  "delivery_bodies",
  "delivery_attempts",
  "payments",
  "payment_wallets",
  "payment_transfers",
  "aml_jobs",
  "cabinet_links",
  "cabinet_sessions",
  "token_decimals",
  "follower_state",
  "quorum_heights",
  "meta",
  "lead_epochs",
  "watched_outputs",
  "mempool_transfers",
  "webhook_endpoints",
  "endpoint_health",
  "notices",
];

/** Every row of every table, each as JSON text, sorted. */
async function dump(): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const t of TABLES) out[t] = (await td.ctx.db.selectFrom(t).selectAll().execute()).map((r) => JSON.stringify(r)).sort();
  return out;
}

/** Whether a row of `table` is the account's: it names the account, or one of its deliveries, endpoints or orders. */
function ownedBy(all: Record<string, string[]>, accountId: string) {
  const rows = (t: string) => all[t].map((r) => JSON.parse(r) as Row);
  const ids = (t: string) => new Set(rows(t).filter((r) => r.account_id === accountId).map((r) => r.id as string));
  const deliveries = ids("deliveries");
  const endpoints = ids("webhook_endpoints");
  const payments = ids("payments");
  return (row: Row) =>
    row.account_id === accountId ||
    (row.id === accountId && "plan" in row) ||
    deliveries.has(row.delivery_id as string) ||
    endpoints.has(row.endpoint_id as string) ||
    payments.has(row.payment_id as string);
}

async function cli(args: string[]) {
  const r = await runCli([...args, "--config", toml]);
  return { ...r, stderr: r.stderr.replace(/^chainwatch: database .*\n/m, "") };
}

/** Gives an account a row in every table an account can have rows in. */
async function populate(c: TestClient): Promise<void> {
  const watched = freshAddress("c");
  expect((await c.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address: watched })).status).toBe(201);
  expect((await c.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true })).status).toBe(200);
  expect((await c.request("POST", "/v1/webhooks/endpoints", { url: `${sink.url}/second`, events: { block: false } })).status).toBe(201);
  expect((await c.request("PUT", "/v1/payments/wallets/eth", { key: XPUB })).status).toBe(200);
  const paid = await createOrder(c, { order_id: `paid-${c.accountId}`, network: "eth", amount: "1" });
  await createOrder(c, { order_id: `open-${c.accountId}`, network: "eth", amount: "1" });
  await ingestOk(
    td,
    block([
      { hash: freshTxHash(), from: freshAddress("f"), to: watched, value: "5" },
      { hash: freshTxHash(), from: freshAddress("f"), to: paid.address, value: "1000000000000000000" },
    ]),
  );
  await ingestOk(td, block());
  await until(() => readOrder(c, paid.payment_id), (o) => o.status === "paid");
  await signIn(td, c.accountId);
  await signInLink(td, c.accountId);
  expect((await c.request("GET", "/v1/account/usage?days=1")).status).toBe(200);
}

/** Waits until no delivery is still to be sent: the database stands still between two dumps. */
async function settled(): Promise<void> {
  await until(
    () => td.ctx.db.selectFrom("deliveries").select("status").where("status", "in", ["pending", "held"]).execute(),
    (rows) => rows.length === 0,
  );
}

beforeAll(async () => {
  // The key limit is raised: readOrder's polling in populate() can spend a key's second, which is
  // not what this file tests (on PostgreSQL a leased token counts a little longer than a second).
  td = await startTestDaemon({ config: { rate_limit: { per_key_rps: 10_000 }, networks: { eth: { family: "evm", decimals: 18, confirmations: 2 } } } });
  toml = writeToml(td.dir);
  sink = startWebhookSink();
  gone = await td.client({ name: "gone", credits: 100_000 });
  kept = await td.client({ name: "kept", credits: 100_000 });
  await populate(gone);
  await populate(kept);
  await settled();
});
afterAll(async () => {
  await sink.stop();
  await td.stop();
});

describe("accounts delete", () => {
  test("without --purge is a usage error saying what --purge does, and removes nothing", async () => {
    const before = await dump();
    const r = await cli(["accounts", "delete", "gone"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toStartWith("chainwatch: accounts delete needs --purge: it removes the account and every row it has in every table (");
    expect(r.stderr).toContain("cannot be undone; to only stop it, use accounts disable");
    expect(await dump()).toEqual(before);
  });

  test("with --purge is refused while the account has an open order, and removes nothing", async () => {
    const before = await dump();
    const r = await cli(["accounts", "delete", "gone", "--purge"]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 1,
      stderr:
        "chainwatch: account gone has 1 open payment order (pending, seen, underpaid or aml_check); pass --force to purge it with them, or wait until they are paid, failed or expired\n",
    });
    expect(await dump()).toEqual(before);
  });

  test("with --purge --force removes every row of the account in every table, counts them per table, and leaves every other row as it was", async () => {
    const before = await dump();
    const owned = ownedBy(before, gone.accountId);
    const expected: Record<string, string[]> = {};
    const counts: Record<string, number> = {};
    for (const t of TABLES) {
      expected[t] = before[t].filter((r) => !owned(JSON.parse(r)));
      counts[t] = before[t].length - expected[t].length;
    }
    // The account had rows of every kind an account has.
    for (const t of ["accounts", "api_keys", "watches", "watch_counts", "events", "block_subscriptions", "deliveries", "delivery_bodies", "delivery_attempts", "webhook_endpoints", "endpoint_health", "payments", "payment_transfers", "payment_wallets", "usage_daily", "cabinet_sessions", "cabinet_links"])
      expect({ t, some: counts[t] > 0 }).toEqual({ t, some: true });

    const r = await cli(["accounts", "delete", "gone", "--purge", "--force", "--json"]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
    const doc = JSON.parse(r.stdout) as Json;
    expect(doc).toMatchObject({ account_id: gone.accountId, name: "gone", purged: true });
    const after = await dump();
    for (const t of TABLES) expect({ t, rows: after[t] }).toEqual({ t, rows: expected[t] });
    for (const [t, n] of Object.entries(doc.removed as Record<string, number>)) expect({ t, n }).toEqual({ t, n: counts[t] });
    // Every table that held a row of the account is in the count.
    for (const t of TABLES) if (counts[t] > 0) expect(Object.keys(doc.removed)).toContain(t);

    expect((await until(() => gone.request("GET", "/v1/account"), (res) => res.status === 401)).status).toBe(401);
    expect((await kept.request("GET", "/v1/account")).status).toBe(200);
    const show = await cli(["accounts", "show", "gone"]);
    expect({ code: show.code, stderr: show.stderr }).toEqual({ code: 1, stderr: "chainwatch: no such account: gone\n" });
  });

  test("prints the count per table as a table without --json", async () => {
    const plain = await td.client({ name: "plain" });
    const r = await cli(["accounts", "delete", plain.accountId, "--purge"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    // The account, its key and its default endpoint.
    expect(lines[0]).toBe(`purged account plain (${plain.accountId}), 3 rows in all:`);
    expect(lines[1]).toMatch(/^TABLE\s+ROWS$/);
    expect(lines.filter((l) => / [1-9]\d*$/.test(l)).map((l) => l.split(/\s+/)[0]).sort()).toEqual(["accounts", "api_keys", "webhook_endpoints"]);
  });
});
