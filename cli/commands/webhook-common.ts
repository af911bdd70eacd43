import { findNetwork } from "../../src/config/networks.ts";
import { MAX_DELIVERY_RPS } from "../../src/config/schema.ts";
import type { Context } from "../../src/context.ts";
import { failureMessage } from "../../src/lib/failures.ts";
import { parseDuration } from "../../src/lib/time.ts";
import { testPayments } from "../../src/payments/sample-order.ts";
import { DEFAULT_GRACE_SECONDS, MAX_GRACE_SECONDS } from "../../src/webhooks/endpoint-secret.ts";
import type { EndpointRef } from "../../src/webhooks/endpoints.ts";
import { TEST_EVENTS } from "../../src/webhooks/samples.ts";
import { queueTest } from "../../src/webhooks/test-endpoint.ts";
import { withContext } from "../context.ts";
import { CommandError, type Globals, UsageError } from "../globals.ts";
import { emit, fields } from "../output.ts";
import { requireAccount } from "./common.ts";

// What `chainwatch webhook` and `chainwatch webhook endpoints` share: their flags and the Test.

/** `--max-rps N`: a whole number in range, or a usage error naming the flag; undefined when left out. */
export function parseMaxRps(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const text = String(raw).trim();
  if (!/^\d{1,9}$/.test(text) || Number(text) > MAX_DELIVERY_RPS) throw new UsageError(`--max-rps must be a whole number from 0 to ${MAX_DELIVERY_RPS}`);
  return Number(text);
}

/** `--grace D`: a duration up to a week (`0` or `0s` ends the old secret at once) in seconds; a day when left out. */
export function parseGrace(raw: unknown): number {
  if (raw === undefined) return DEFAULT_GRACE_SECONDS;
  const text = String(raw).trim();
  const ms = text === "0" ? 0 : parseDuration(text);
  if (ms === null || ms > MAX_GRACE_SECONDS * 1000) throw new UsageError("--grace must be a duration such as 0, 30m, 24h or 7d, at most 7d");
  return ms / 1000;
}

/** The next step after a test that has nowhere to go: the command (and the API route) that sets the URL. */
export function webhookHint(code: string, account: string): string {
  if (code === "NO_WEBHOOK_URL")
    return ` Set one with \`chainwatch webhook set --account ${account} --url URL --enabled\` (or PUT /v1/address-watch/webhook).`;
  if (code === "WEBHOOK_DISABLED")
    return ` Switch it on with \`chainwatch webhook set --account ${account} --url URL --enabled\` (or PUT /v1/address-watch/webhook), or set the payments URL (PUT /v1/payments/settings).`;
  return "";
}

/**
 * Queues a test delivery to `ref` (the default endpoint as the address-watch webhook, or one endpoint) and
 * prints its id; the running daemon sends it on its next tick. Usage errors before anything opens.
 */
export function runTest(g: Globals, args: { account?: unknown; event?: unknown; network?: unknown }, ref: EndpointRef): Promise<void> {
  const event = String(args.event);
  const network = String(args.network);
  if (!(TEST_EVENTS as readonly string[]).includes(event)) throw new UsageError(`--event must be one of ${TEST_EVENTS.join(", ")}`);
  return withContext(g, async (ctx: Context) => {
    if (!findNetwork(ctx.config.networks, network)) throw new UsageError(`--network: unknown network ${network}`);
    const account = await requireAccount(ctx.db, String(args.account));
    const deps = { ...ctx, payments: testPayments, wakeDelivery: () => {} };
    const queued = await queueTest(deps, account.id, ref, { event, network });
    if (!queued.ok && queued.code === "ENDPOINT_NOT_FOUND" && ref !== "default") throw new CommandError(`no such endpoint of this account: ${ref.endpointId}`);
    if (!queued.ok) throw new CommandError(`${failureMessage(queued)}${ref === "default" ? webhookHint(queued.code, account.name) : ""}`);
    const doc = { queued: true, delivery_id: queued.deliveryId };
    emit(g, doc, () => fields(Object.entries(doc)));
  });
}
