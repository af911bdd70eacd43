import type { Db } from "../db/database.ts";
import type { Plan } from "../db/schema.ts";
import type { Clock } from "../lib/clock.ts";
import { type Explained, type InvalidInput, invalidInput, type Result } from "../lib/error-codes.ts";

export type PlanInput = { name: string; slots: number; rpcRps?: number; monthlyCredits?: number; maxEndpoints?: number };

/** How many webhook endpoints an account may have unless its plan says (docs/webhooks.md). */
export const DEFAULT_MAX_ENDPOINTS = 10;
export type PlanResult = Result<{ plan: Plan }, InvalidInput>;

const NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** Creates or updates a plan. `free` always exists and always has 0 address slots (docs/api.md). */
export async function setPlan(db: Db, clock: Clock, input: PlanInput): Promise<PlanResult> {
  if (!NAME.test(input.name)) return invalidInput("plan name must be 1-32 of a-z, 0-9, _ and -");
  if (input.name === "free" && input.slots !== 0) return invalidInput("plan free always has 0 address slots");
  // Every account has its default endpoint from the start.
  if (input.maxEndpoints !== undefined && input.maxEndpoints < 1) return invalidInput("max_endpoints must be at least 1: every account has its default webhook endpoint");
  const now = clock.now();
  const existing = await getPlan(db, input.name);
  const plan: Plan = {
    name: input.name,
    address_slots: input.slots,
    // docs/rpc.md: 25 JSON-RPC calls a second unless set.
    rpc_rps: input.rpcRps ?? existing?.rpc_rps ?? 25,
    monthly_credits: input.monthlyCredits ?? existing?.monthly_credits ?? 0,
    max_endpoints: input.maxEndpoints ?? existing?.max_endpoints ?? DEFAULT_MAX_ENDPOINTS,
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
  await db
    .insertInto("plans")
    .values(plan)
    .onConflict((oc) =>
      oc.column("name").doUpdateSet({
        address_slots: plan.address_slots,
        rpc_rps: plan.rpc_rps,
        monthly_credits: plan.monthly_credits,
        max_endpoints: plan.max_endpoints,
        updated_at: now,
      }),
    )
    .execute();
  return { ok: true, plan };
}

export function getPlan(db: Db, name: string): Promise<Plan | undefined> {
  return db.selectFrom("plans").selectAll().where("name", "=", name).executeTakeFirst();
}

export function listPlans(db: Db): Promise<Plan[]> {
  return db.selectFrom("plans").selectAll().orderBy("name").execute();
}

/** The public shape of a plan (GET /v1/account). */
export function planView(p: Pick<Plan, "name" | "address_slots" | "rpc_rps" | "monthly_credits">) {
  return { name: p.name, address_slots: p.address_slots, rpc_rps: p.rpc_rps, monthly_credits: p.monthly_credits };
}

/** A plan as the operator's CLI shows it: the public shape and the endpoint limit. */
export function adminPlanView(p: Plan) {
  return { ...planView(p), max_endpoints: Number(p.max_endpoints) };
}

/** The failure of a plan name that names no plan. */
export function unknownPlan(name: string): Explained<"PLAN_NOT_FOUND"> {
  return { ok: false, code: "PLAN_NOT_FOUND", error: `unknown plan: ${name}` };
}
