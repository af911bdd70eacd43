import type { Db, Executor } from "../db/database.ts";
import type { Account } from "../db/schema.ts";
import { resumePausedDeliveries } from "../delivery/outbox.ts";
import { newWebhookSecret } from "../delivery/signer.ts";
import { createDefaultEndpoint } from "../webhooks/manage-endpoints.ts";
import type { Clock } from "../lib/clock.ts";
import { type Explained, invalidInput, type Result } from "../lib/error-codes.ts";
import { newId } from "../lib/ids.ts";
import { rfc3339 } from "../lib/time.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import { getPlan, unknownPlan } from "./plans.ts";
import { accountStatements } from "./sql/dialects.ts";
import type { AccountSnapshotRow } from "./sql/statements.ts";

export type AccountResult = Result<{ account: Account }, Explained<"INVALID_INPUT" | "PLAN_NOT_FOUND" | "ACCOUNT_EXISTS">>;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Creates an account on a plan with a starting credit balance and, in the same transaction, its
 * default webhook endpoint (no URL yet, switched off) with a fresh secret: the one returned here.
 */
export async function createAccount(
  deps: { db: Db; clock: Clock; box: SecretBox },
  input: { name: string; plan?: string; credits?: number },
): Promise<AccountResult & { webhookSecret?: string }> {
  if (!NAME.test(input.name) || input.name.startsWith("acc_"))
    return invalidInput("account name must be 1-64 of letters, digits, '.', '_' and '-', not starting with acc_");
  const planName = input.plan ?? "free";
  if (!(await getPlan(deps.db, planName))) return unknownPlan(planName);
  if (await findAccount(deps.db, input.name)) return { ok: false, code: "ACCOUNT_EXISTS", error: `account ${input.name} already exists` };
  const now = deps.clock.now();
  const webhookSecret = newWebhookSecret();
  const account: Account = {
    id: newId("acc"),
    name: input.name,
    plan: planName,
    credits: input.credits ?? 0,
    payments_webhook_url: null,
    created_at: now,
    updated_at: now,
    disabled_at: null,
  };
  await deps.db.transaction().execute(async (trx) => {
    await trx.insertInto("accounts").values(account).execute();
    await createDefaultEndpoint(trx, { accountId: account.id, sealedSecret: deps.box.seal(webhookSecret), nowMs: now });
  });
  return { ok: true, account, webhookSecret };
}

/** Finds an account by id (`acc_…`) or by name. */
export function findAccount(db: Db, nameOrId: string): Promise<Account | undefined> {
  return db
    .selectFrom("accounts")
    .selectAll()
    .where((eb) => eb.or([eb("id", "=", nameOrId), eb("name", "=", nameOrId)]))
    .executeTakeFirst();
}

/** The account named by id (`acc_…`) or name, or ACCOUNT_NOT_FOUND saying what was asked for. */
export async function accountNamed(db: Db, nameOrId: string): Promise<Result<{ account: Account }, Explained<"ACCOUNT_NOT_FOUND">>> {
  const account = await findAccount(db, nameOrId);
  return account ? { ok: true, account } : { ok: false, code: "ACCOUNT_NOT_FOUND", error: `no such account: ${nameOrId}` };
}

export function listAccounts(db: Db): Promise<Account[]> {
  return db.selectFrom("accounts").selectAll().orderBy("created_at").orderBy("name").execute();
}

/** What GET /v1/account shows: the account, its plan, slots used and credits spent on one day. */
export type AccountSnapshot = AccountSnapshotRow;

// GET /v1/account is the hot path of the signed API. One statement instead of three, written out
// per dialect (sql/) because building it with Kysely's query builder costs more than
// SQLite takes to run it. Its slots_used reads the same count as slotsUsed (watch/watches.ts).

/** The account snapshot for `day` (YYYY-MM-DD, UTC); throws when the account does not exist. */
export async function accountSnapshot(db: Db, accountId: string, day: string): Promise<AccountSnapshot> {
  const { rows } = await db.executeQuery(accountStatements(db).accountSnapshot(accountId, day));
  if (!rows[0]) throw new Error(`no account ${accountId}`);
  return rows[0];
}

/** The largest balance an account may hold: every figure chainwatch reports stays an exact integer. */
export const MAX_BALANCE = Number.MAX_SAFE_INTEGER;

/**
 * Adds credits and, in the same transaction, resumes deliveries paused for lack of credits, so
 * the delivery loop (in this or another process) picks them up on its next tick. A credit that
 * would take the balance past MAX_BALANCE is refused whole.
 */
export async function addCredits(db: Db, clock: Clock, accountId: string, amount: number): Promise<AccountResult> {
  const now = clock.now();
  return db.transaction().execute(async (trx): Promise<AccountResult> => {
    if (!(await creditAccount(trx, accountId, amount, now))) {
      const { credits } = await trx.selectFrom("accounts").select("credits").where("id", "=", accountId).executeTakeFirstOrThrow();
      return invalidInput(`adding ${amount} credits to a balance of ${credits} would pass the largest balance, ${MAX_BALANCE}`);
    }
    await resumePausedDeliveries(trx, [accountId], now);
    return { ok: true, account: await trx.selectFrom("accounts").selectAll().where("id", "=", accountId).executeTakeFirstOrThrow() };
  });
}

/**
 * Adds to an account's balance, in the caller's transaction: false, adding nothing, when that would
 * take the balance past MAX_BALANCE.
 */
export async function creditAccount(trx: Executor, accountId: string, amount: number, nowMs: number): Promise<boolean> {
  const added = await trx
    .updateTable("accounts")
    .set((eb) => ({ credits: eb("credits", "+", amount), updated_at: nowMs }))
    .where("id", "=", accountId)
    .where("credits", "<=", MAX_BALANCE - amount)
    .executeTakeFirst();
  return Number(added.numUpdatedRows) > 0;
}

export async function setAccountPlan(db: Db, clock: Clock, accountId: string, plan: string): Promise<AccountResult> {
  if (!(await getPlan(db, plan))) return unknownPlan(plan);
  await db.updateTable("accounts").set({ plan, updated_at: clock.now() }).where("id", "=", accountId).execute();
  const account = await db.selectFrom("accounts").selectAll().where("id", "=", accountId).executeTakeFirstOrThrow();
  return { ok: true, account };
}

/** The admin view of an account (CLI); the webhook secret only when asked for. */
export function accountView(a: Account, extra: { slotsUsed: number; slotsLimit: number; webhookSecret?: string }) {
  return {
    account_id: a.id,
    name: a.name,
    status: a.disabled_at === null ? ("active" as const) : ("disabled" as const),
    disabled_at: a.disabled_at === null ? null : rfc3339(a.disabled_at),
    plan: a.plan,
    credits: a.credits,
    address_slots: { used: extra.slotsUsed, limit: extra.slotsLimit },
    created_at: rfc3339(a.created_at),
    ...(extra.webhookSecret ? { webhook_secret: extra.webhookSecret } : {}),
  };
}
