import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createAccount } from "../../src/accounts/accounts.ts";
import { createApiKey, revokeApiKey } from "../../src/accounts/api-keys.ts";
import { createKeyStore, type KeyStore } from "../../src/auth/key-store.ts";
import type { Context } from "../../src/daemon.ts";
import { manualClock } from "../support/clock.ts";
import { parseCidr } from "../../src/net/ip.ts";
import { openScratchContext, type ScratchContext } from "../support/scratch-context.ts";

let scratch: ScratchContext;
let ctx: Context;
let store: KeyStore;
const clock = manualClock();
let accountId: string;

beforeEach(async () => {
  scratch = await openScratchContext("keystore", clock);
  ctx = scratch.ctx;
  store = createKeyStore({ db: ctx.db, box: ctx.box, clock });
  const acct = await createAccount(ctx, { name: "keys" });
  if (!acct.ok) throw new Error(acct.error);
  accountId = acct.account.id;
});
afterEach(async () => {
  await scratch.close();
});

async function newKey(allowIps: string[] = []) {
  const created = await createApiKey(ctx, { accountId, allowIps });
  if (!created.ok) throw new Error(created.error);
  return created.key;
}

describe("the API key store", () => {
  test("finds a key with its secret decrypted and its allowlist parsed", async () => {
    const key = await newKey(["10.0.0.0/8", "2001:db8::1"]);
    expect(await store.find(key.api_key)).toEqual({
      apiKey: key.api_key,
      accountId,
      secret: key.secret,
      allowCidrs: [parseCidr("10.0.0.0/8")!, parseCidr("2001:db8::1")!],
      accountDisabled: false,
    });
  });

  test("finds a key written in upper case", async () => {
    const key = await newKey();
    expect((await store.find(key.api_key.toUpperCase()))?.apiKey).toBe(key.api_key);
  });

  test("answers null for an unknown or malformed key", async () => {
    expect(await store.find("00000000-0000-4000-8000-000000000000")).toBe(null);
    expect(await store.find("not-a-uuid")).toBe(null);
    expect(await store.find("")).toBe(null);
  });

  test("keeps serving a revoked key for at most the 1 s cache, then answers null", async () => {
    const key = await newKey();
    expect(await store.find(key.api_key)).not.toBe(null);
    await revokeApiKey(ctx.db, clock, key.api_key);
    clock.advance(999);
    expect(await store.find(key.api_key)).not.toBe(null);
    clock.advance(1);
    expect(await store.find(key.api_key)).toBe(null);
  });

  test("a wall clock stepped back an hour does not keep a revoked key cached for that hour", async () => {
    const key = await newKey();
    expect(await store.find(key.api_key)).not.toBe(null);
    await revokeApiKey(ctx.db, clock, key.api_key);
    clock.step(-3_600_000);
    clock.advance(1000);
    expect(await store.find(key.api_key)).toBe(null);
  });

  test("sees a key created after a miss once the cached miss expires", async () => {
    const key = await newKey();
    await ctx.db.updateTable("api_keys").set({ revoked_at: 1 }).where("api_key", "=", key.api_key).execute();
    expect(await store.find(key.api_key)).toBe(null);
    await ctx.db.updateTable("api_keys").set({ revoked_at: null }).where("api_key", "=", key.api_key).execute();
    clock.advance(1000);
    expect((await store.find(key.api_key))?.secret).toBe(key.secret);
  });

  test("a read that finds the key unchanged keeps its record; a changed secret, allowlist or account state is read anew", async () => {
    const key = await newKey(["10.0.0.0/8"]);
    const first = await store.find(key.api_key);
    clock.advance(1000);
    expect(await store.find(key.api_key)).toBe(first);

    const secret = "rotated-secret-of-this-key";
    await ctx.db.updateTable("api_keys").set({ secret_enc: ctx.box.seal(secret), allow_ips: JSON.stringify(["192.168.0.0/16"]) }).where("api_key", "=", key.api_key).execute();
    clock.advance(1000);
    const second = await store.find(key.api_key);
    expect(second).toEqual({ apiKey: key.api_key, accountId, secret, allowCidrs: [parseCidr("192.168.0.0/16")!], accountDisabled: false });

    await ctx.db.updateTable("accounts").set({ disabled_at: 5 }).where("id", "=", accountId).execute();
    clock.advance(1000);
    expect(await store.find(key.api_key)).toEqual({ ...second!, accountDisabled: true });
  });

  test("requests that find a key expired while it is being read share the one read", async () => {
    const key = await newKey();
    const [a, b] = [store.find(key.api_key), store.find(key.api_key)];
    expect(a).toBeInstanceOf(Promise);
    expect(b).toBe(a);
    expect((await a)?.secret).toBe(key.secret);
    expect(store.find(key.api_key)).toBe(await a);
  });
});

