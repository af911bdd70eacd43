import type { Config } from "../config/schema.ts";
import type { Db } from "../db/database.ts";
import { andThen, type MaybePromise } from "../lib/maybe-promise.ts";
import { planView } from "./plans.ts";
import type { SnapshotCache } from "./snapshot-cache.ts";

/**
 * The account with its plan's limits. Only called for an account a request was authenticated
 * for (the key store returns keys of live accounts only), so it exists.
 */
export function loadAccount(db: Db, accountId: string) {
  return db
    .selectFrom("accounts")
    .innerJoin("plans", "plans.name", "accounts.plan")
    .selectAll("accounts")
    .select(["plans.address_slots", "plans.rpc_rps", "plans.monthly_credits"])
    .where("accounts.id", "=", accountId)
    .executeTakeFirstOrThrow();
}

/** GET /v1/account: the plan, the credits and the address slots (docs/api.md). */
export type AccountOverview = {
  account_id: string;
  name: string;
  environment: string;
  plan: ReturnType<typeof planView>;
  credits: { balance: number; spent_today: number };
  address_slots: { used: number; limit: number };
};

/** The account as GET /v1/account shows it, from a snapshot at most a second old (at once when it is cached). */
export function accountOverview(deps: { snapshots: SnapshotCache; config: Pick<Config, "environment"> }, accountId: string): MaybePromise<AccountOverview> {
  return andThen(deps.snapshots.get(accountId), (a) => ({
    account_id: a.id,
    name: a.name,
    environment: deps.config.environment,
    plan: planView({ name: a.plan, address_slots: a.address_slots, rpc_rps: a.rpc_rps, monthly_credits: a.monthly_credits }),
    credits: { balance: Number(a.credits), spent_today: Number(a.spent_today) },
    address_slots: { used: Number(a.slots_used), limit: a.address_slots },
  }));
}
