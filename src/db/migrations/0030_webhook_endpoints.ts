import { type Kysely, sql } from "kysely";

/**
 * Webhook endpoints (docs/webhooks.md): an account has several, each with its URL, switch, filters,
 * delivery rate, signing secret (and a rotated-out one with its expiry) and health, written by
 * src/webhooks/ alone. The account's webhook columns move into its **default endpoint** (the one
 * with the smallest id: ids are time-ordered, so the oldest), secrets copied sealed as they are;
 * the payments URL stays on the account. Every account gets one: each has a secret, which
 * `accounts show` prints and the payments URL is signed with.
 *
 * `endpoint_health` is re-keyed from the account to its default endpoint; `deliveries.endpoint_id`
 * says which endpoint a row goes to (null: the account's payments URL), set for the rows already
 * queued by where they went until now (address-watch rows and tests to the webhook; payment-order
 * rows to the payments URL when one is set, else to the webhook); `notices.endpoint_id` names the
 * endpoint an `endpoint_disabled` notice is about, so switching that one on resolves it; plans gain
 * `max_endpoints` (default 10).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("webhook_endpoints")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("account_id", "text", (c) => c.notNull().references("accounts.id"))
    .addColumn("url", "text")
    .addColumn("enabled", "integer", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("filters", "text", (c) => c.notNull())
    .addColumn("max_rps", "integer")
    .addColumn("secret_enc", "text", (c) => c.notNull())
    .addColumn("previous_secret_enc", "text")
    .addColumn("previous_secret_expires_at", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  // An account's endpoints in id order: the first is its default (one seek), the list walks on.
  await db.schema.createIndex("webhook_endpoints_account").on("webhook_endpoints").columns(["account_id", "id"]).execute();

  for (let after = ""; ; ) {
    const accounts = await db
      .selectFrom("accounts")
      .select([
        "id",
        "webhook_url",
        "webhook_enabled",
        "webhook_filters",
        "webhook_max_rps",
        "webhook_secret_enc",
        "webhook_previous_secret_enc",
        "webhook_previous_secret_expires_at",
        "created_at",
      ])
      .where("id", ">", after)
      .orderBy("id")
      .limit(500)
      .execute();
    if (accounts.length === 0) break;
    after = accounts[accounts.length - 1].id;
    await db
      .insertInto("webhook_endpoints")
      .values(
        accounts.map((a) => ({
          id: endpointId(),
          account_id: a.id,
          url: a.webhook_url,
          enabled: a.webhook_enabled,
          description: null,
          filters: a.webhook_filters,
          max_rps: a.webhook_max_rps,
          secret_enc: a.webhook_secret_enc,
          previous_secret_enc: a.webhook_previous_secret_enc,
          previous_secret_expires_at: a.webhook_previous_secret_expires_at,
          created_at: a.created_at,
          updated_at: a.created_at,
        })),
      )
      .execute();
  }
  const defaultOf = (alias: string) => sql`(select min(e.id) from webhook_endpoints as e where e.account_id = ${sql.ref(`${alias}.account_id`)})`;

  // Made under a name of its own and renamed once the old one is gone: PostgreSQL names a primary
  // key after its table, and the old table's would still hold that name.
  await db.schema
    .createTable("endpoint_health_by_endpoint")
    .addColumn("endpoint_id", "text", (c) => c.primaryKey())
    .addColumn("failing_since", "bigint")
    .addColumn("last_success_at", "bigint")
    .addColumn("last_status_code", "integer")
    .addColumn("last_error", "text")
    .addColumn("disabled_at", "bigint")
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await sql`insert into endpoint_health_by_endpoint (endpoint_id, failing_since, last_success_at, last_status_code, last_error, disabled_at, updated_at)
    select ${defaultOf("h")}, h.failing_since, h.last_success_at, h.last_status_code, h.last_error, h.disabled_at, h.updated_at
    from endpoint_health as h where exists (select 1 from webhook_endpoints as e where e.account_id = h.account_id)`.execute(db);
  await db.schema.dropTable("endpoint_health").execute();
  await db.schema.alterTable("endpoint_health_by_endpoint").renameTo("endpoint_health").execute();

  await db.schema.alterTable("deliveries").addColumn("endpoint_id", "text").execute();
  // Where each row went until now: the webhook, except payment-order rows of an account with a payments URL.
  await sql`update deliveries set endpoint_id = ${defaultOf("deliveries")}
    where kind <> 'payment' or account_id in (select a.id from accounts as a where a.payments_webhook_url is null)`.execute(db);

  await db.schema.alterTable("notices").addColumn("endpoint_id", "text").execute();
  await sql`update notices set endpoint_id = ${defaultOf("notices")} where type = 'endpoint_disabled'`.execute(db);

  await db.schema.alterTable("plans").addColumn("max_endpoints", "integer", (c) => c.notNull().defaultTo(10)).execute();

  // One column per ALTER: SQLite drops one at a time.
  for (const column of WEBHOOK_COLUMNS) await db.schema.alterTable("accounts").dropColumn(column).execute();
}

/** The account columns the default endpoint took over. */
const WEBHOOK_COLUMNS = [
  "webhook_url",
  "webhook_enabled",
  "webhook_filters",
  "webhook_max_rps",
  "webhook_secret_enc",
  "webhook_previous_secret_enc",
  "webhook_previous_secret_expires_at",
] as const;

/** The shape webhooks/endpoints.ts makes (kept here: a migration must not change with the code): time-ordered, 24 hex. */
function endpointId(): string {
  const micros = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  return `ep_${micros.toString(16).padStart(13, "0").slice(-13)}${Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString("hex").slice(1)}`;
}

/** Back to one webhook per account: each account's default endpoint returns to its columns; the others are dropped. */
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("accounts").addColumn("webhook_secret_enc", "text").execute();
  await db.schema.alterTable("accounts").addColumn("webhook_previous_secret_enc", "text").execute();
  await db.schema.alterTable("accounts").addColumn("webhook_previous_secret_expires_at", "bigint").execute();
  await db.schema.alterTable("accounts").addColumn("webhook_url", "text").execute();
  await db.schema.alterTable("accounts").addColumn("webhook_enabled", "integer", (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable("accounts").addColumn("webhook_filters", "text", (c) => c.notNull().defaultTo("{}")).execute();
  await db.schema.alterTable("accounts").addColumn("webhook_max_rps", "integer").execute();
  const fromDefault = (column: string) =>
    sql`(select ${sql.ref(`e.${column}`)} from webhook_endpoints as e where e.id = (select min(x.id) from webhook_endpoints as x where x.account_id = accounts.id))`;
  await sql`update accounts set webhook_secret_enc = ${fromDefault("secret_enc")}, webhook_previous_secret_enc = ${fromDefault("previous_secret_enc")},
    webhook_previous_secret_expires_at = ${fromDefault("previous_secret_expires_at")}, webhook_url = ${fromDefault("url")},
    webhook_enabled = ${fromDefault("enabled")}, webhook_filters = ${fromDefault("filters")}, webhook_max_rps = ${fromDefault("max_rps")}`.execute(db);

  await db.schema.alterTable("plans").dropColumn("max_endpoints").execute();
  await db.schema.alterTable("notices").dropColumn("endpoint_id").execute();
  await db.schema.alterTable("deliveries").dropColumn("endpoint_id").execute();

  await db.schema
    .createTable("endpoint_health_by_account")
    .addColumn("account_id", "text", (c) => c.primaryKey())
    .addColumn("failing_since", "bigint")
    .addColumn("last_success_at", "bigint")
    .addColumn("last_status_code", "integer")
    .addColumn("last_error", "text")
    .addColumn("disabled_at", "bigint")
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await sql`insert into endpoint_health_by_account (account_id, failing_since, last_success_at, last_status_code, last_error, disabled_at, updated_at)
    select e.account_id, h.failing_since, h.last_success_at, h.last_status_code, h.last_error, h.disabled_at, h.updated_at
    from endpoint_health as h join webhook_endpoints as e on e.id = h.endpoint_id
    where e.id = (select min(x.id) from webhook_endpoints as x where x.account_id = e.account_id)`.execute(db);
  await db.schema.dropTable("endpoint_health").execute();
  await db.schema.alterTable("endpoint_health_by_account").renameTo("endpoint_health").execute();
  await db.schema.dropTable("webhook_endpoints").execute();
}
