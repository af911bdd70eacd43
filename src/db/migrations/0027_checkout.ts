import type { Kysely } from "kysely";

/**
 * The payers' checkout page of every order (docs/checkout.md): `checkout_token`, the random part of
 * its address, kept as is because every order answer (create, get, list) shows the address again;
 * `checkout_key`, its SHA-256, which the page looks an order up by (unique), so the look-up does
 * the same work whatever string a visitor sends; and the merchant's optional `description` and
 * `redirect_url`. Orders made before this migration get a token here, so every order has a page.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // One column per ALTER: SQLite adds one at a time. Nullable, as SQLite cannot add a NOT NULL
  // column without a default; payments/create-order.ts always writes the token and its key.
  await db.schema.alterTable("payments").addColumn("checkout_token", "text").execute();
  await db.schema.alterTable("payments").addColumn("checkout_key", "text").execute();
  await db.schema.alterTable("payments").addColumn("description", "text").execute();
  await db.schema.alterTable("payments").addColumn("redirect_url", "text").execute();
  for (;;) {
    const rows = await db.selectFrom("payments").select("id").where("checkout_token", "is", null).limit(500).execute();
    if (rows.length === 0) break;
    for (const { id } of rows) {
      // The shape payments/checkout-token.ts makes (kept here: a migration must not change with the code).
      const token = Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url");
      const key = new Bun.CryptoHasher("sha256").update(token).digest("hex");
      await db.updateTable("payments").set({ checkout_token: token, checkout_key: key }).where("id", "=", id).execute();
    }
  }
  await db.schema.createIndex("payments_checkout_key").on("payments").column("checkout_key").unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("payments_checkout_key").execute();
  await db.schema.alterTable("payments").dropColumn("redirect_url").execute();
  await db.schema.alterTable("payments").dropColumn("description").execute();
  await db.schema.alterTable("payments").dropColumn("checkout_key").execute();
  await db.schema.alterTable("payments").dropColumn("checkout_token").execute();
}
