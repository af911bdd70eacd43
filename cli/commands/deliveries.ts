import { defineCommand } from "citty";
import { listAccounts } from "../../src/accounts/accounts.ts";
import {
  attemptsOf,
  DELIVERY_STATUSES,
  deliveryView,
  listDeliveries,
  retryDelivery,
} from "../../src/delivery/admin.ts";
import { withContext } from "../context.ts";
import { CommandError, type Globals, intFlag, UsageError } from "../globals.ts";
import { emit, fields, table } from "../output.ts";
import { globalArgs, requireAccount } from "./common.ts";

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1000;

export function deliveriesCommand(g: Globals) {
  return defineCommand({
    meta: { name: "deliveries", description: "Inspect and re-queue webhook deliveries" },
    subCommands: {
      list: defineCommand({
        meta: { name: "list", description: "The outbox, newest first (--json adds each delivery's attempts)" },
        args: {
          ...globalArgs,
          account: { type: "string", description: "Only this account (name or id)" },
          status: { type: "string", description: DELIVERY_STATUSES.join(" | ") },
          limit: { type: "string", description: `At most N rows (1..${MAX_LIMIT}, default ${DEFAULT_LIMIT})` },
        },
        run: ({ args }) =>
          withContext(g, async (ctx) => {
            const limit = intFlag(args.limit, "limit") ?? DEFAULT_LIMIT;
            if (limit < 1 || limit > MAX_LIMIT) throw new UsageError(`--limit must be from 1 to ${MAX_LIMIT}`);
            if (args.status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(args.status))
              throw new UsageError(`--status must be one of ${DELIVERY_STATUSES.join(", ")}`);
            const accountId = args.account ? (await requireAccount(ctx.db, args.account)).id : undefined;
            const rows = await listDeliveries(ctx.db, { accountId, status: args.status, limit });
            if (g.json) {
              const attempts = await attemptsOf(ctx.db, rows.map((d) => d.id));
              const deliveries = rows.map((d) => deliveryView(d, attempts.filter((a) => a.delivery_id === d.id)));
              emit(g, { deliveries }, () => "");
              return;
            }
            const names = new Map((await listAccounts(ctx.db)).map((a) => [a.id, a.name]));
            emit(g, null, () =>
              table(
                ["ID", "ACCOUNT", "KIND", "EVENT", "STATUS", "ATTEMPTS", "LAST_CODE", "LAST_ERROR", "NEXT_ATTEMPT", "CREATED"],
                rows.map((d) => {
                  const v = deliveryView(d);
                  return [
                    v.id,
                    names.get(v.account_id) ?? v.account_id,
                    v.kind,
                    v.event_type,
                    v.status,
                    v.attempts,
                    v.last_status_code,
                    v.last_error,
                    v.next_attempt_at,
                    v.created_at,
                  ];
                }),
              ),
            );
          }),
      }),
      retry: defineCommand({
        meta: {
          name: "retry",
          description: "Re-queue a delivery that has not succeeded: pending now, attempt count back to 0",
        },
        args: { ...globalArgs, id: { type: "positional", description: "Delivery id (dlv_…)", required: true } },
        run: ({ args }) =>
          withContext(g, async (ctx) => {
            const result = await retryDelivery(ctx.db, String(args.id), ctx.clock.now());
            if (!result.ok) throw new CommandError(result.error);
            const v = deliveryView(result.delivery);
            emit(g, v, () => fields(Object.entries(v)));
          }),
      }),
    },
  });
}
