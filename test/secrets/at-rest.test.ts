import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createApiKey } from "../../src/accounts/api-keys.ts";
import { parseConfig } from "../../src/config/load.ts";
import { openContext } from "../../src/daemon.ts";
import { createSecretBox } from "../../src/secrets/secret-box.ts";

let dir: string;
let apiSecret: string;
let webhookSecret: string;
let apiKey: string;
let accountId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-at-rest-"));
  const cfg = parseConfig({ database: { url: `sqlite://${dir}/db.sqlite` }, secrets: { master_key_file: `${dir}/master.key` } }, "test");
  if (!cfg.ok) throw new Error(cfg.error);
  const ctx = await openContext(cfg.config, { env: {} });
  const acct = await createAccount(ctx, { name: "vault" });
  if (!acct.ok) throw new Error(acct.error);
  const key = await createApiKey(ctx, { accountId: acct.account.id, allowIps: [] });
  if (!key.ok) throw new Error(key.error);
  accountId = acct.account.id;
  apiKey = key.key.api_key;
  apiSecret = key.key.secret;
  webhookSecret = acct.webhookSecret!;
  await ctx.db.destroy();
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The rows exactly as stored, read with plain bun:sqlite (no chainwatch code). */
function rawRows() {
  const db = new Database(join(dir, "db.sqlite"), { readonly: true });
  try {
    return {
      key: db.query("SELECT * FROM api_keys WHERE api_key = ?").get(apiKey) as Record<string, unknown>,
      account: db.query("SELECT * FROM webhook_endpoints WHERE account_id = ?").get(accountId) as Record<string, unknown>,
    };
  } finally {
    db.close();
  }
}

describe("secrets at rest", () => {
  test("the api_keys table does not contain the API secret", () => {
    const { key } = rawRows();
    expect(JSON.stringify(key)).not.toContain(apiSecret);
    expect(JSON.stringify(key)).not.toContain(Buffer.from(apiSecret).toString("base64"));
    expect(String(key.secret_enc)).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  });

  test("the webhook endpoints table does not contain the webhook secret", () => {
    const { account } = rawRows();
    expect(JSON.stringify(account)).not.toContain(webhookSecret.slice("whsec_".length));
    expect(JSON.stringify(account)).not.toContain("whsec_");
    expect(String(account.secret_enc)).toMatch(/^v1\./);
  });

  test("the database files hold neither secret anywhere", () => {
    let read = 0;
    for (const file of [join(dir, "db.sqlite"), join(dir, "db.sqlite-wal")]) {
      let text = "";
      try {
        text = readFileSync(file).toString("latin1");
      } catch {
        continue; // the WAL is checkpointed away on close
      }
      read++;
      expect(text).not.toContain(apiSecret);
      expect(text).not.toContain(webhookSecret.slice("whsec_".length));
    }
    expect(read).toBeGreaterThan(0);
  });

  test("the master key opens both sealed secrets", () => {
    const { key, account } = rawRows();
    const box = createSecretBox(Uint8Array.from(Buffer.from(readFileSync(join(dir, "master.key"), "utf8").trim(), "hex")));
    expect(box.open(String(key.secret_enc))).toBe(apiSecret);
    expect(box.open(String(account.secret_enc))).toBe(webhookSecret);
  });

  test("a wrong master key cannot open them", () => {
    const { key, account } = rawRows();
    const wrong = createSecretBox(new Uint8Array(32).fill(7));
    expect(() => wrong.open(String(key.secret_enc))).toThrow();
    expect(() => wrong.open(String(account.secret_enc))).toThrow();
  });

  test("start-up with another master key stops with the reason instead of serving 500s", async () => {
    const cfg = parseConfig({ database: { url: `sqlite://${dir}/db.sqlite` }, secrets: { master_key_file: `${dir}/master.key` } }, "test");
    if (!cfg.ok) throw new Error(cfg.error);
    await expect(openContext(cfg.config, { env: { CHAINWATCH_MASTER_KEY: "07".repeat(32) } })).rejects.toThrow(
      "the master key cannot decrypt the secrets stored in the database (wrong CHAINWATCH_MASTER_KEY or master_key_file?)",
    );
  });

  test("start-up with the right master key passes the check", async () => {
    const cfg = parseConfig({ database: { url: `sqlite://${dir}/db.sqlite` }, secrets: { master_key_file: `${dir}/master.key` } }, "test");
    if (!cfg.ok) throw new Error(cfg.error);
    const ctx = await openContext(cfg.config, { env: {} });
    try {
      // The context it returns holds the same key: it opens what the first start sealed.
      const row = await ctx.db.selectFrom("webhook_endpoints").select("secret_enc").executeTakeFirstOrThrow();
      expect(ctx.box.open(row.secret_enc)).toBe(webhookSecret);
    } finally {
      await ctx.db.destroy();
    }
  });

  test("sealing the same secret twice gives different ciphertexts (fresh IV)", () => {
    const box = createSecretBox(new Uint8Array(32).fill(1));
    expect(box.seal("same")).not.toBe(box.seal("same"));
  });

  test("a tampered ciphertext is refused", () => {
    const box = createSecretBox(new Uint8Array(32).fill(1));
    const [v, iv, body] = box.seal("secret").split(".");
    const flipped = Buffer.from(body, "base64url");
    flipped[0] ^= 1;
    expect(() => box.open(`${v}.${iv}.${flipped.toString("base64url")}`)).toThrow();
  });
});
