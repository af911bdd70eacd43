import { afterAll, beforeAll, expect, it } from "bun:test";
import type { Kysely } from "kysely";
import { createSecretBox } from "../../src/secrets/secret-box.ts";
import { type MigrationScratch, migrationScratch } from "../support/migration-scratch.ts";

// 0030_webhook_endpoints upgrades a database holding accounts with webhooks (one with a rotation
// in its grace period and a payments URL), their health, their queued deliveries and an
// endpoint_disabled notice: each account's webhook becomes its default endpoint, secrets sealed as
// they were, and what referred to the account's webhook refers to that endpoint. On SQLite, and on
// PostgreSQL when the suite runs there.

let scratch: MigrationScratch;
let db: Kysely<any>;
const box = createSecretBox(new Uint8Array(32).fill(3));
const sealed = { shop: box.seal("whsec_c2hvcC1zZWNyZXQ="), old: box.seal("whsec_b2xkLXNlY3JldA=="), quiet: box.seal("whsec_cXVpZXQ=") };
const filters = '{"payment":true,"payment_networks":[],"payout":false,"payout_networks":[],"block":true,"block_networks":["eth"],"min_confirmations":3}';

beforeAll(async () => {
  scratch = await migrationScratch("0029_notice_resolution");
  db = scratch.db;
  const account = (id: string, o: Record<string, unknown>) => ({
    id,
    name: id,
    plan: "free",
    credits: 0,
    webhook_secret_enc: sealed.quiet,
    webhook_previous_secret_enc: null,
    webhook_previous_secret_expires_at: null,
    webhook_url: null,
    webhook_enabled: 0,
    webhook_filters: "{}",
    webhook_max_rps: null,
    payments_webhook_url: null,
    created_at: 1000,
    updated_at: 1000,
    ...o,
  });
  await db
    .insertInto("accounts")
    .values([
      account("acc_shop", {
        webhook_secret_enc: sealed.shop,
        webhook_previous_secret_enc: sealed.old,
        webhook_previous_secret_expires_at: 9_000_000,
        webhook_url: "https://shop.example/hook",
        webhook_enabled: 1,
        webhook_filters: filters,
        webhook_max_rps: 7,
        payments_webhook_url: "https://shop.example/pay",
        created_at: 500,
      }),
      account("acc_quiet", {}),
    ])
    .execute();
  await db
    .insertInto("endpoint_health")
    .values({ account_id: "acc_shop", failing_since: 2000, last_success_at: 1500, last_status_code: 503, last_error: "http 503", disabled_at: null, updated_at: 2000 })
    .execute();
  const delivery = (id: string, account_id: string, kind: string, status: string) => ({
    id,
    account_id,
    kind,
    event_type: kind === "payment" ? "payment_order" : "payment",
    network: "eth",
    event_id: null,
    payment_id: kind === "payment" ? "pay_1" : null,
    sequence: kind === "payment" ? 1 : null,
    body: "{}",
    status,
    attempts: 0,
    next_attempt_at: 3000,
    lease_until: null,
    last_status_code: null,
    last_error: null,
    credits_charged: 0,
    created_at: 3000,
    updated_at: 3000,
    completed_at: null,
    hold_until_height: null,
    replay: 0,
  });
  await db
    .insertInto("deliveries")
    .values([
      delivery("dlv_event", "acc_shop", "event", "pending"),
      delivery("dlv_test", "acc_shop", "test", "succeeded"),
      delivery("dlv_order", "acc_shop", "payment", "pending"),
      delivery("dlv_quiet_order", "acc_quiet", "payment", "failed"),
    ])
    .execute();
  await db
    .insertInto("notices")
    .values([
      { id: "ntc_1", account_id: "acc_shop", type: "endpoint_disabled", message: "off", delivery_id: null, created_at: 2500, resolved_at: null },
      { id: "ntc_2", account_id: "acc_shop", type: "delivery_failed", message: "failed", delivery_id: "dlv_x", created_at: 2600, resolved_at: null },
    ])
    .execute();
  expect((await scratch.migrator.migrateTo("0030_webhook_endpoints")).error).toBeUndefined();
});
afterAll(() => scratch.close());

const defaultOf = async (accountId: string) =>
  (await db.selectFrom("webhook_endpoints").selectAll().where("account_id", "=", accountId).orderBy("id").executeTakeFirstOrThrow()) as Record<string, any>;

it("gives every account a default endpoint with its webhook's settings and its secrets, sealed as they were", async () => {
  const shop = await defaultOf("acc_shop");
  expect(shop).toMatchObject({
    url: "https://shop.example/hook",
    enabled: 1,
    description: null,
    filters,
    max_rps: 7,
    secret_enc: sealed.shop,
    previous_secret_enc: sealed.old,
    previous_secret_expires_at: 9_000_000,
    created_at: 500,
  });
  expect(shop.id).toMatch(/^ep_[0-9a-f]{24}$/);
  expect(box.open(shop.secret_enc)).toBe("whsec_c2hvcC1zZWNyZXQ=");
  expect(await defaultOf("acc_quiet")).toMatchObject({ url: null, enabled: 0, secret_enc: sealed.quiet, previous_secret_enc: null, max_rps: null });
  expect((await db.selectFrom("webhook_endpoints").select("id").execute()).length).toBe(2);
});

it("moves the account's webhook columns off the account, keeping its payments URL", async () => {
  const row = (await db.selectFrom("accounts").selectAll().where("id", "=", "acc_shop").executeTakeFirstOrThrow()) as Record<string, unknown>;
  expect(Object.keys(row).filter((k) => k.startsWith("webhook_"))).toEqual([]);
  expect(row.payments_webhook_url).toBe("https://shop.example/pay");
});

it("re-keys the health record to the default endpoint", async () => {
  const shop = await defaultOf("acc_shop");
  expect(await db.selectFrom("endpoint_health").selectAll().execute()).toEqual([
    { endpoint_id: shop.id, failing_since: 2000, last_success_at: 1500, last_status_code: 503, last_error: "http 503", disabled_at: null, updated_at: 2000 },
  ]);
});

it("gives queued deliveries the endpoint they went to: the webhook's, or none for a payments URL", async () => {
  const shop = (await defaultOf("acc_shop")).id;
  const quiet = (await defaultOf("acc_quiet")).id;
  const rows = await db.selectFrom("deliveries").select(["id", "endpoint_id"]).orderBy("id").execute();
  expect(rows).toEqual([
    { id: "dlv_event", endpoint_id: shop },
    { id: "dlv_order", endpoint_id: null },
    { id: "dlv_quiet_order", endpoint_id: quiet },
    { id: "dlv_test", endpoint_id: shop },
  ]);
});

it("names the endpoint of an endpoint_disabled notice, and only of that type", async () => {
  const shop = (await defaultOf("acc_shop")).id;
  expect(await db.selectFrom("notices").select(["id", "endpoint_id"]).orderBy("id").execute()).toEqual([
    { id: "ntc_1", endpoint_id: shop },
    { id: "ntc_2", endpoint_id: null },
  ]);
});

it("gives every plan max_endpoints 10", async () => {
  expect(await db.selectFrom("plans").select(["name", "max_endpoints"]).execute()).toEqual([{ name: "free", max_endpoints: 10 }]);
});

it("goes back down to the account's webhook, from its default endpoint", async () => {
  const { migrator } = scratch;
  expect((await migrator.migrateTo("0029_notice_resolution")).error).toBeUndefined();
  const row = await db
    .selectFrom("accounts")
    .select(["webhook_url", "webhook_enabled", "webhook_filters", "webhook_max_rps", "webhook_secret_enc", "webhook_previous_secret_enc", "payments_webhook_url"])
    .where("id", "=", "acc_shop")
    .executeTakeFirstOrThrow();
  expect(row).toEqual({
    webhook_url: "https://shop.example/hook",
    webhook_enabled: 1,
    webhook_filters: filters,
    webhook_max_rps: 7,
    webhook_secret_enc: sealed.shop,
    webhook_previous_secret_enc: sealed.old,
    payments_webhook_url: "https://shop.example/pay",
  });
  expect(await db.selectFrom("endpoint_health").select(["account_id", "failing_since"]).execute()).toEqual([{ account_id: "acc_shop", failing_since: 2000 }]);
  // And up again: the same data, migrated afresh.
  expect((await migrator.migrateToLatest()).error).toBeUndefined();
  expect(await defaultOf("acc_shop")).toMatchObject({ url: "https://shop.example/hook", secret_enc: sealed.shop });
});
