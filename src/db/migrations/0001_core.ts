import { type Kysely, sql } from "kysely";

/** Plans, accounts, API keys and the daily usage series; seeds the `free` plan (0 slots). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("plans")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("address_slots", "integer", (c) => c.notNull())
    .addColumn("rpc_rps", "integer", (c) => c.notNull())
    .addColumn("monthly_credits", "integer", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  const now = Date.now();
  await db
    .insertInto("plans")
    .values({ name: "free", address_slots: 0, rpc_rps: 10, monthly_credits: 0, created_at: now, updated_at: now })
    .execute();

  await db.schema
    .createTable("accounts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull().unique())
    .addColumn("plan", "text", (c) => c.notNull().references("plans.name"))
    .addColumn("credits", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("webhook_secret_enc", "text", (c) => c.notNull())
    .addColumn("webhook_url", "text")
    .addColumn("webhook_enabled", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("webhook_filters", "text", (c) => c.notNull())
    .addColumn("payments_webhook_url", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("api_keys")
    .addColumn("api_key", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("secret_enc", "text", (c) => c.notNull())
    .addColumn("allow_ips", "text", (c) => c.notNull().defaultTo(sql`'[]'`))
    .addColumn("label", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("revoked_at", "bigint")
    .execute();
  await db.schema.createIndex("api_keys_account").on("api_keys").column("account_id").execute();

  await db.schema
    .createTable("usage_daily")
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("day", "text", (c) => c.notNull())
    .addColumn("credits", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("deliveries", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("events", "integer", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("usage_daily_pk", ["account_id", "day"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ["usage_daily", "api_keys", "accounts", "plans"]) await db.schema.dropTable(t).execute();
}
