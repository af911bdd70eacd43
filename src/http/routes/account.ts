import { Elysia, t } from "elysia";
import { planView } from "../../accounts/plans.ts";
import { usageSeries } from "../../billing/usage.ts";
import { countEvents } from "../../watch/events.ts";
import { slotsUsed } from "../../watch/watches.ts";
import { type AppDeps, signatureDeps } from "../deps.ts";
import { integerParam, type RawQuery, rawQuery } from "../query.ts";
import { signature } from "../plugins/signature.ts";
import { responses } from "../openapi/responses.ts";

/** Loads the authenticated account with its plan; the key store only returns keys of live accounts. */
export async function loadAccount(deps: AppDeps, accountId: string) {
  return deps.db
    .selectFrom("accounts")
    .innerJoin("plans", "plans.name", "accounts.plan")
    .selectAll("accounts")
    .select(["plans.address_slots", "plans.rpc_rps", "plans.monthly_credits"])
    .where("accounts.id", "=", accountId)
    .executeTakeFirstOrThrow();
}

/** Parses `days`: an integer 1..90, 30 when absent; empty or repeated is not an integer. */
export function parseDays(query: RawQuery): number {
  return integerParam(query, "days", { min: 1, max: 90, fallback: 30 });
}

/** GET /v1/account, /v1/account/usage, /v1/endpoints and /v1/address-watch/account. */
export function accountRoutes(deps: AppDeps) {
  return new Elysia()
    .use(signature(signatureDeps(deps)))
    .get(
      "/v1/account",
      async ({ auth }) => {
        const a = await deps.snapshots.get(auth.accountId);
        return {
          account_id: a.id,
          name: a.name,
          environment: deps.config.environment,
          plan: planView({ ...a, name: a.plan, created_at: 0, updated_at: 0 }),
          credits: { balance: Number(a.credits), spent_today: Number(a.spent_today) },
          address_slots: { used: Number(a.slots_used), limit: a.address_slots },
        };
      },
      {
        detail: {
          summary: "Plan and usage snapshot",
          description:
            "`plan.rpc_rps` is the plan's limit on the JSON-RPC endpoint (POST /rpc/{network}), in calls per second; it does not limit this signed API, which allows `rate_limit.per_key_rps` requests per second per key.",
          tags: ["account"],
          responses: responses({ 200: ["Account", "The account"] }),
        },
      },
    )
    .get(
      "/v1/account/usage",
      async ({ auth, request }) => {
        const days = parseDays(rawQuery(request));
        return { days, series: await usageSeries(deps.db, auth.accountId, deps.clock.now(), days) };
      },
      {
        query: t.Object({ days: t.Optional(t.String({ description: "1..90, default 30" })) }),
        detail: { summary: "Daily usage series, exactly `days` UTC days, today last", tags: ["account"], responses: responses({ 200: ["Usage", "The series"] }, [[400, "days must be an integer from 1 to 90"]]) },
      },
    )
    .get(
      "/v1/endpoints",
      () => ({
        endpoints: Object.entries(deps.config.networks).map(([network, n]) => ({
          network,
          family: n.family,
          decimals: n.decimals,
          confirmations: n.confirmations,
        })),
      }),
      { detail: { summary: "Networks this daemon serves", tags: ["account"], responses: responses({ 200: ["Endpoints", "The networks"] }) } },
    )
    .get(
      "/v1/address-watch/account",
      async ({ auth }) => {
        const a = await loadAccount(deps, auth.accountId);
        // Block events are stored once per block and shared; countEvents adds the ones this account received.
        const [used, eventsTotal] = await Promise.all([slotsUsed(deps.db, a.id), countEvents(deps.db, a.id)]);
        return {
          address_slots: { used, limit: a.address_slots },
          webhook: { url: a.webhook_url, enabled: a.webhook_enabled === 1 },
          events_total: eventsTotal,
        };
      },
      { detail: { summary: "Address-watch slots, webhook state and event count", tags: ["address-watch"], responses: responses({ 200: ["AddressWatchAccount", "Slots, webhook and event count"] }) } },
    );
}
