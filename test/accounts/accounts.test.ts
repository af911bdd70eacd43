import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { accountNamed, addCredits, createAccount, findAccount, listAccounts, MAX_BALANCE, setAccountPlan } from "../../src/accounts/accounts.ts";
import { createApiKey, listApiKeys, revokeApiKey, revokeKey } from "../../src/accounts/api-keys.ts";
import { getPlan, listPlans, setPlan } from "../../src/accounts/plans.ts";
import type { Context } from "../../src/daemon.ts";
import { manualClock } from "../support/clock.ts";
import { openScratchContext, type ScratchContext } from "../support/scratch-context.ts";
import { readEndpointSecret } from "../../src/webhooks/endpoint-secret.ts";
import { defaultEndpoint } from "../../src/webhooks/endpoints.ts";
import { insertDeliveryRows } from "../support/delivery-rows.ts";

const clock = manualClock();
let scratch: ScratchContext;
let ctx: Context;

beforeEach(async () => {
  scratch = await openScratchContext("accounts", clock);
  ctx = scratch.ctx;
});
afterEach(async () => {
  await scratch.close();
});

async function account(name: string, plan?: string) {
  const r = await createAccount(ctx, { name, plan });
  if (!r.ok) throw new Error(r.error);
  return r;
}

describe("plans", () => {
  test("plan free exists with 0 slots after migration", async () => {
    expect(await listPlans(ctx.db)).toMatchObject([{ name: "free", address_slots: 0, rpc_rps: 25, monthly_credits: 0 }]);
  });

  test("set creates a plan, and setting it again updates only what is given", async () => {
    expect(await setPlan(ctx.db, clock, { name: "gold", slots: 5, rpcRps: 50, monthlyCredits: 1000 })).toMatchObject({
      ok: true,
      plan: { name: "gold", address_slots: 5, rpc_rps: 50, monthly_credits: 1000 },
    });
    await setPlan(ctx.db, clock, { name: "gold", slots: 8 });
    expect(await getPlan(ctx.db, "gold")).toMatchObject({ name: "gold", address_slots: 8, rpc_rps: 50, monthly_credits: 1000 });
    expect((await listPlans(ctx.db)).map((p) => p.name)).toEqual(["free", "gold"]);
  });

  test("free always keeps 0 address slots", async () => {
    expect(await setPlan(ctx.db, clock, { name: "free", slots: 3 })).toEqual({ ok: false, code: "INVALID_INPUT", error: "plan free always has 0 address slots" });
    expect((await setPlan(ctx.db, clock, { name: "free", slots: 0, monthlyCredits: 100 })).ok).toBe(true);
  });

  test.each(["Gold", "", "-x", "a".repeat(33), "with space"])("refuses the plan name %p", async (name) => {
    expect(await setPlan(ctx.db, clock, { name, slots: 1 })).toEqual({ ok: false, code: "INVALID_INPUT", error: "plan name must be 1-32 of a-z, 0-9, _ and -" });
  });
});

describe("accounts", () => {
  test("create puts a new account on plan free with 0 credits and a Standard Webhooks secret", async () => {
    const r = await account("alice");
    expect(r.account).toMatchObject({ name: "alice", plan: "free", credits: 0 });
    expect(await defaultEndpoint(ctx.db, r.account.id)).toMatchObject({ url: null, enabled: false });
    expect(r.account.id).toMatch(/^acc_[0-9a-f]{24}$/);
    expect(r.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(r.webhookSecret!.slice(6), "base64").length).toBe(24);
    expect((await readEndpointSecret(ctx, (await defaultEndpoint(ctx.db, r.account.id)).id)).secret).toBe(r.webhookSecret!);
  });

  test("refuses an unknown plan, a taken name and a malformed name", async () => {
    await account("alice");
    expect(await createAccount(ctx, { name: "bob", plan: "nope" })).toEqual({ ok: false, code: "PLAN_NOT_FOUND", error: "unknown plan: nope" });
    expect(await createAccount(ctx, { name: "alice" })).toEqual({ ok: false, code: "ACCOUNT_EXISTS", error: "account alice already exists" });
    const malformed = "account name must be 1-64 of letters, digits, '.', '_' and '-', not starting with acc_";
    for (const name of ["", "has space", "acc_fake", "-lead", "x".repeat(65)])
      expect(await createAccount(ctx, { name })).toEqual({ ok: false, code: "INVALID_INPUT", error: malformed });
  });

  test("is found by id or by name", async () => {
    const r = await account("alice");
    expect((await findAccount(ctx.db, r.account.id))?.name).toBe("alice");
    expect((await findAccount(ctx.db, "alice"))?.id).toBe(r.account.id);
    expect(await findAccount(ctx.db, "nobody")).toBeUndefined();
    expect((await listAccounts(ctx.db)).map((a) => a.name)).toEqual(["alice"]);
  });

  test("the operator names an account by id or by name; an unknown one is ACCOUNT_NOT_FOUND saying what was asked for", async () => {
    const r = await account("alice");
    expect(await accountNamed(ctx.db, r.account.id)).toEqual({ ok: true, account: r.account });
    expect(await accountNamed(ctx.db, "alice")).toEqual({ ok: true, account: r.account });
    expect(await accountNamed(ctx.db, "nobody")).toEqual({ ok: false, code: "ACCOUNT_NOT_FOUND", error: "no such account: nobody" });
  });

  test("set-plan moves an account and refuses an unknown plan", async () => {
    const r = await account("alice");
    await setPlan(ctx.db, clock, { name: "gold", slots: 5 });
    expect(await setAccountPlan(ctx.db, clock, r.account.id, "gold")).toMatchObject({ ok: true, account: { plan: "gold" } });
    expect(await setAccountPlan(ctx.db, clock, r.account.id, "nope")).toEqual({ ok: false, code: "PLAN_NOT_FOUND", error: "unknown plan: nope" });
  });

  test("credit adds to the balance and resumes deliveries paused for lack of credits", async () => {
    const r = await account("alice");
    const other = await account("bob");
    const paused = (id: string, accountId: string) => ({
      id,
      account_id: accountId,
      kind: "event",
      event_type: "payment",
      network: "eth",
      event_id: null,
      payment_id: null,
      sequence: null,
      body: "{}",
      status: "paused",
      attempts: 0,
      next_attempt_at: 0,
      lease_until: null,
      last_status_code: null,
      last_error: null,
      credits_charged: 0,
      created_at: 0,
      updated_at: 0,
      completed_at: null,
    });
    await insertDeliveryRows(ctx.db, [paused("dlv_mine", r.account.id), paused("dlv_theirs", other.account.id)]);
    const credited = async (amount: number) => {
      const result = await addCredits(ctx.db, clock, r.account.id, amount);
      return result.ok ? result.account.credits : result.error;
    };
    expect(await credited(250)).toBe(250);
    expect(await credited(50)).toBe(300);
    const rows = await ctx.db.selectFrom("deliveries").select(["id", "status", "next_attempt_at"]).orderBy("id").execute();
    expect(rows).toEqual([
      { id: "dlv_mine", status: "pending", next_attempt_at: clock.now() },
      { id: "dlv_theirs", status: "paused", next_attempt_at: 0 },
    ]);
  });

  test("a credit that would pass the largest exact balance is refused whole", async () => {
    const r = await account("whale");
    const credit = async (amount: number) => {
      const result = await addCredits(ctx.db, clock, r.account.id, amount);
      return result.ok ? result.account.credits : result.error;
    };
    expect(await credit(MAX_BALANCE - 10)).toBe(MAX_BALANCE - 10);
    expect(await credit(11)).toBe(`adding 11 credits to a balance of ${MAX_BALANCE - 10} would pass the largest balance, ${MAX_BALANCE}`);
    expect(await credit(10)).toBe(MAX_BALANCE);
    const stored = await ctx.db.selectFrom("accounts").select("credits").where("id", "=", r.account.id).executeTakeFirstOrThrow();
    expect(Number(stored.credits)).toBe(MAX_BALANCE);
  });
});

describe("API keys", () => {
  test("create returns a UUID key and a 64-hex secret, stored sealed", async () => {
    const a = await account("alice");
    const r = await createApiKey(ctx, { accountId: a.account.id, allowIps: ["10.0.0.0/8", "::1"], label: "ci" });
    if (!r.ok) throw new Error(r.error);
    expect(r.key.api_key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(r.key.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(r.key).toMatchObject({ account_id: a.account.id, allow_ips: ["10.0.0.0/8", "::1"], label: "ci" });
    const row = await ctx.db.selectFrom("api_keys").selectAll().where("api_key", "=", r.key.api_key).executeTakeFirstOrThrow();
    expect(row.secret_enc).not.toContain(r.key.secret);
    expect(ctx.box.open(row.secret_enc)).toBe(r.key.secret);
  });

  test("refuses an allowlist entry that is not an IP or CIDR", async () => {
    const a = await account("alice");
    expect(await createApiKey(ctx, { accountId: a.account.id, allowIps: ["10.0.0.0/8", "nope"] })).toEqual({
      ok: false,
      code: "INVALID_INPUT",
      error: "nope is not an IP address or CIDR",
    });
    expect(await createApiKey(ctx, { accountId: a.account.id, allowIps: ["10.0.0.0/33"] })).toMatchObject({ ok: false });
  });

  test("list never shows secrets and filters by account", async () => {
    const a = await account("alice");
    const b = await account("bob");
    const ka = await createApiKey(ctx, { accountId: a.account.id, allowIps: [] });
    await createApiKey(ctx, { accountId: b.account.id, allowIps: [] });
    if (!ka.ok) throw new Error(ka.error);
    const all = await listApiKeys(ctx.db);
    expect(all.length).toBe(2);
    expect(JSON.stringify(all)).not.toContain(ka.key.secret);
    for (const k of all) expect(Object.keys(k).sort()).toEqual(["account_id", "allow_ips", "api_key", "created_at", "label", "revoked_at"]);
    expect(await listApiKeys(ctx.db, a.account.id)).toEqual([
      { api_key: ka.key.api_key, account_id: a.account.id, allow_ips: [], label: null, created_at: "2026-11-21T12:00:00.000+00:00", revoked_at: null },
    ]);
  });

  test("revoke succeeds once, then reports no active key", async () => {
    const a = await account("alice");
    const k = await createApiKey(ctx, { accountId: a.account.id, allowIps: [] });
    if (!k.ok) throw new Error(k.error);
    expect(await revokeApiKey(ctx.db, clock, k.key.api_key.toUpperCase())).toBe(true);
    expect(await revokeApiKey(ctx.db, clock, k.key.api_key)).toBe(false);
    expect(await revokeApiKey(ctx.db, clock, "00000000-0000-4000-8000-000000000000")).toBe(false);
    expect((await listApiKeys(ctx.db))[0].revoked_at).toBe("2026-11-21T12:00:00.000+00:00");
  });

  test("the operator's revoke of any key: once, then KEY_NOT_FOUND naming the key", async () => {
    const a = await account("alice");
    const k = await createApiKey(ctx, { accountId: a.account.id, allowIps: [] });
    if (!k.ok) throw new Error(k.error);
    expect(await revokeKey(ctx, k.key.api_key)).toEqual({ ok: true });
    expect(await revokeKey(ctx, k.key.api_key)).toEqual({ ok: false, code: "KEY_NOT_FOUND", error: `no active API key ${k.key.api_key}` });
  });
});
