import { defineCommand } from "citty";
import { adminPlanView, DEFAULT_MAX_ENDPOINTS, listPlans, setPlan } from "../../src/accounts/plans.ts";
import { withContext } from "../context.ts";
import { CommandError, type Globals, intFlag, UsageError } from "../globals.ts";
import { emit, fields, table } from "../output.ts";
import { globalArgs } from "./common.ts";

/** Said under the table so that no operator reads RPC_RPS as a limit on the signed API. */
export const RPC_RPS_NOTE = "RPC_RPS limits the JSON-RPC endpoint (POST /rpc/{network}) only; the signed API is limited per key by rate_limit.per_key_rps.";

export function plansCommand(g: Globals) {
  return defineCommand({
    meta: { name: "plans", description: "Create, update and list plans" },
    subCommands: {
      set: defineCommand({
        meta: { name: "set", description: "Create or update a plan" },
        args: {
          ...globalArgs,
          name: { type: "positional", description: "Plan name", required: true },
          slots: { type: "string", description: "Address slots (hard cap on watched addresses)", required: true },
          "rpc-rps": {
            type: "string",
            description: "Calls per second on the JSON-RPC endpoint (POST /rpc/{network}); limits nothing else",
          },
          "monthly-credits": { type: "string", description: "Credits granted per month" },
          "max-endpoints": { type: "string", description: `Webhook endpoints an account may have (default ${DEFAULT_MAX_ENDPOINTS}; at least 1)` },
        },
        run: ({ args }) => {
          const slots = intFlag(args.slots, "slots");
          if (slots === undefined) throw new UsageError("--slots is required");
          const maxEndpoints = intFlag(args["max-endpoints"], "max-endpoints");
          if (maxEndpoints === 0) throw new UsageError("--max-endpoints must be at least 1: every account has its default webhook endpoint");
          const input = {
            name: String(args.name),
            slots,
            rpcRps: intFlag(args["rpc-rps"], "rpc-rps"),
            monthlyCredits: intFlag(args["monthly-credits"], "monthly-credits"),
            maxEndpoints,
          };
          return withContext(g, async (ctx) => {
            const result = await setPlan(ctx.db, ctx.clock, input);
            if (!result.ok) throw new CommandError(result.error);
            const view = adminPlanView(result.plan);
            emit(g, view, () => fields(Object.entries(view)));
          });
        },
      }),
      list: defineCommand({
        meta: { name: "list", description: "List plans" },
        args: { ...globalArgs },
        run: () =>
          withContext(g, async (ctx) => {
            const plans = (await listPlans(ctx.db)).map(adminPlanView);
            emit(
              g,
              { plans },
              () =>
                `${table(
                  ["NAME", "SLOTS", "RPC_RPS", "MONTHLY_CREDITS", "MAX_ENDPOINTS"],
                  plans.map((p) => [p.name, p.address_slots, p.rpc_rps, p.monthly_credits, p.max_endpoints]),
                )}\n${RPC_RPS_NOTE}`,
            );
          }),
      }),
    },
  });
}
