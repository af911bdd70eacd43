import { defineCommand } from "citty";
import { countDeliveries, deliveryView, loggedAttemptCounts, retryDelivery } from "../../src/delivery/admin.ts";
import { DELIVERY_STATUSES, isDeliveryStatus } from "../../src/delivery/status-terms.ts";
import { listDeliveryPage } from "../../src/delivery/list-deliveries.ts";
import { failureMessage } from "../../src/lib/failures.ts";
import { parseDuration, rfc3339 } from "../../src/lib/time.ts";
import { recoverEndpoint, recoverFailedDeliveries } from "../../src/webhooks/recover.ts";
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
        meta: {
          name: "list",
          description: "The outbox, newest first, a page at a time (--cursor for the next page; --json adds each delivery's attempts)",
        },
        args: {
          ...globalArgs,
          account: { type: "string", description: "Only this account (name or id)" },
          status: { type: "string", description: DELIVERY_STATUSES.join(" | ") },
          limit: { type: "string", description: `At most N rows (1..${MAX_LIMIT}, default ${DEFAULT_LIMIT})` },
          cursor: { type: "string", description: "Start after this delivery (the id the previous page named as its cursor)" },
          count: { type: "boolean", description: "Print how many deliveries match --account and --status instead of listing them" },
        },
        run: ({ args }) => {
          const limit = intFlag(args.limit, "limit") ?? DEFAULT_LIMIT;
          if (limit < 1 || limit > MAX_LIMIT) throw new UsageError(`--limit must be from 1 to ${MAX_LIMIT}`);
          if (args.status !== undefined && !isDeliveryStatus(args.status))
            throw new UsageError(`--status must be one of ${DELIVERY_STATUSES.join(", ")}`);
          return withContext(g, async (ctx) => {
            const accountId = args.account ? (await requireAccount(ctx.db, args.account)).id : undefined;
            if (args.count) {
              const count = await countDeliveries(ctx.db, { accountId, status: args.status });
              emit(g, { count }, () => String(count));
              return;
            }
            const cursor = args.cursor === undefined ? undefined : String(args.cursor);
            const page = await listDeliveryPage(ctx.db, { accountId, status: args.status, limit, cursor, attemptLog: g.json });
            if (!page.ok) throw new UsageError(`--cursor ${cursor} is no delivery`);
            const { deliveries, nextCursor, accountNames } = page;
            if (g.json) {
              emit(g, { deliveries, next_cursor: nextCursor }, () => "");
              return;
            }
            // The table stays the whole of stdout; where the next page starts goes to stderr.
            if (nextCursor !== null) g.io.stderr.write(`more: --cursor ${nextCursor}\n`);
            emit(g, null, () =>
              table(
                ["ID", "ACCOUNT", "KIND", "EVENT", "STATUS", "ATTEMPTS", "LAST_CODE", "LAST_ERROR", "NEXT_ATTEMPT", "CREATED"],
                deliveries.map((v) => [
                  v.id,
                  accountNames.get(v.account_id) ?? v.account_id,
                  v.kind,
                  v.event_type,
                  v.status,
                  v.attempts,
                  v.last_status_code,
                  v.last_error,
                  v.next_attempt_at,
                  v.created_at,
                ]),
              ),
            );
          });
        },
      }),
      retry: defineCommand({
        meta: {
          name: "retry",
          description: "Re-queue a delivery that has not succeeded: pending now, with a fresh retry schedule (its logged attempts stay)",
        },
        args: { ...globalArgs, id: { type: "positional", description: "Delivery id (dlv_…)", required: true } },
        run: ({ args }) =>
          withContext(g, async (ctx) => {
            const result = await retryDelivery(ctx.db, String(args.id), ctx.clock.now());
            if (!result.ok) throw new CommandError(result.error);
            const counts = await loggedAttemptCounts(ctx.db, [result.delivery.id]);
            const v = deliveryView(result.delivery, counts.get(result.delivery.id) ?? 0);
            emit(g, v, () => fields(Object.entries(v)));
          }),
      }),
      recover: defineCommand({
        meta: {
          name: "recover",
          description: "Re-queue an account's failed deliveries queued in a time range, oldest first, with a fresh retry schedule",
        },
        args: {
          ...globalArgs,
          account: { type: "string", description: "Account name or id", required: true },
          endpoint: { type: "string", description: "Only this webhook endpoint's (ep_…); default every endpoint's and the payments URL's" },
          since: { type: "string", description: "Start of the range: a duration ago (30m, 24h, 7d) or an RFC 3339 time", required: true },
          until: { type: "string", description: "End of the range, excluded, in the same forms (default now)" },
        },
        run: ({ args }) => {
          const sinceAt = instantFlag(String(args.since), "since");
          const untilAt = args.until === undefined ? undefined : instantFlag(String(args.until), "until");
          return withContext(g, async (ctx) => {
            const nowMs = ctx.clock.now();
            const since = sinceAt(nowMs);
            const until = untilAt?.(nowMs);
            if (since * 1000 > nowMs) throw new UsageError("--since must not be in the future");
            if (until !== undefined && until <= since) throw new UsageError("--until must be after --since");
            const account = await requireAccount(ctx.db, String(args.account));
            // The daemon picks the re-queued rows up on its next tick (delivery.interval_seconds).
            const deps = { db: ctx.db, clock: ctx.clock, wakeDelivery: () => {} };
            const body = { since, until };
            const result =
              args.endpoint === undefined
                ? await recoverFailedDeliveries(deps, { accountId: account.id, endpoints: "all" }, body)
                : await recoverEndpoint(deps, account.id, { endpointId: String(args.endpoint) }, body);
            if (!result.ok && result.code === "ENDPOINT_NOT_FOUND") throw new CommandError(`--endpoint: no such endpoint of account ${account.name}: ${String(args.endpoint)}`);
            if (!result.ok) throw new CommandError(failureMessage(result));
            const range = `queued since ${rfc3339(since * 1000)}${until === undefined ? "" : ` until ${rfc3339(until * 1000)}`}`;
            emit(g, { requeued: result.requeued, more: result.more }, () =>
              [
                `Re-queued ${result.requeued} failed ${result.requeued === 1 ? "delivery" : "deliveries"} of ${account.name} ${range}.`,
                ...(result.more ? ["More remain: run the command again."] : []),
              ].join("\n"),
            );
          });
        },
      }),
    },
  });
}

/**
 * A --since or --until value (a duration before now, or an RFC 3339 time), read before anything is
 * opened, as the Unix seconds it names once "now" is known.
 */
function instantFlag(value: string, name: string): (nowMs: number) => number {
  const ago = parseDuration(value);
  if (ago !== null) return (nowMs) => Math.floor((nowMs - ago) / 1000);
  const at = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isNaN(at)) return () => Math.floor(at / 1000);
  throw new UsageError(`--${name} must be a duration ago such as 30m, 24h or 7d, or an RFC 3339 time`);
}
