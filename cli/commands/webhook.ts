import { defineCommand } from "citty";
import { findNetwork } from "../../src/config/networks.ts";
import { MAX_DELIVERY_RPS } from "../../src/config/schema.ts";
import { failureMessage } from "../../src/lib/failures.ts";
import { systemResolver } from "../../src/net/target-guard.ts";
import { updateWebhook } from "../../src/watch/update-webhook.ts";
import { readWebhookSettings } from "../../src/watch/webhook-settings.ts";
import { DEFAULT_GRACE_SECONDS, MAX_GRACE_SECONDS, rotatedView, rotateWebhookSecret } from "../../src/watch/webhook-secret.ts";
import { parseDuration } from "../../src/lib/time.ts";
import { queueTestDelivery } from "../../src/webhook-test/queue-test.ts";
import { TEST_EVENTS } from "../../src/webhook-test/sample-payloads.ts";
import { withContext } from "../context.ts";
import { CommandError, type Globals, UsageError } from "../globals.ts";
import { emit, fields } from "../output.ts";
import { globalArgs, requireAccount } from "./common.ts";

/** `--max-rps N`: a whole number in range, or a usage error naming the flag; undefined when left out. */
function parseMaxRps(raw: unknown): number | undefined {
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

export function webhookCommand(g: Globals) {
  return defineCommand({
    meta: { name: "webhook", description: "Webhook tools" },
    subCommands: {
      set: defineCommand({
        meta: {
          name: "set",
          description: "Set an account's webhook URL (same checks as PUT /v1/address-watch/webhook); --enabled switches it on",
        },
        args: {
          ...globalArgs,
          account: { type: "string", description: "Account name or id", required: true },
          url: { type: "string", description: "Absolute http(s) URL; private targets need delivery.allow_private_targets", required: true },
          enabled: { type: "boolean", description: "Deliver to it (--no-enabled: stop); left out, keeps the current setting" },
          "max-rps": {
            type: "string",
            description: `Most deliveries a second to it, 0 to ${MAX_DELIVERY_RPS} (0: no limit); left out, keeps the current setting`,
          },
        },
        run: ({ args }) => {
          const maxRps = parseMaxRps(args["max-rps"]);
          return withContext(g, async (ctx) => {
            const account = await requireAccount(ctx.db, String(args.account));
            const current = await readWebhookSettings(ctx.db, account.id);
            const enabled = typeof args.enabled === "boolean" ? args.enabled : current.enabled;
            const body = { url: String(args.url), enabled, ...(maxRps === undefined ? {} : { delivery: { max_rps: maxRps } }) };
            // On the command line the URL is the --url flag, and the sentences say so.
            const outcome = await updateWebhook({ ...ctx, resolveHost: systemResolver }, account.id, body, { urlField: "--url" });
            if (!outcome.ok) {
              const hint = outcome.code === "PRIVATE_ADDRESS" ? " (a receiver on this machine needs delivery.allow_private_targets = true in the config)" : "";
              throw new CommandError(`${failureMessage(outcome)}${hint}`);
            }
            const doc = outcome.webhook;
            emit(g, doc, () => fields(Object.entries(doc)));
          });
        },
      }),
      "rotate-secret": defineCommand({
        meta: {
          name: "rotate-secret",
          description: "Give an account a new webhook secret (printed this once); the old one keeps signing beside it for --grace",
        },
        args: {
          ...globalArgs,
          account: { type: "string", description: "Account name or id", required: true },
          grace: { type: "string", description: "How long the old secret keeps signing too: 0 (ends at once), 30m, 24h, 7d (default 24h, at most 7d)" },
        },
        run: ({ args }) => {
          const graceSeconds = parseGrace(args.grace);
          return withContext(g, async (ctx) => {
            const account = await requireAccount(ctx.db, String(args.account));
            const rotated = await rotateWebhookSecret(ctx, account.id, { grace_seconds: graceSeconds });
            if (!rotated.ok) throw new CommandError(failureMessage(rotated));
            const doc = rotatedView(rotated);
            emit(g, doc, () => fields(Object.entries(doc)));
          });
        },
      }),
      test: defineCommand({
        meta: {
          name: "test",
          description: "Queue a test delivery (never billed); the running daemon sends it on its next tick",
        },
        args: {
          ...globalArgs,
          account: { type: "string", description: "Account name or id", required: true },
          event: { type: "string", description: TEST_EVENTS.join(" | "), required: true },
          network: { type: "string", description: "Network slug", required: true },
        },
        run: ({ args }) => {
          const event = String(args.event);
          const network = String(args.network);
          if (!(TEST_EVENTS as readonly string[]).includes(event)) throw new UsageError(`--event must be one of ${TEST_EVENTS.join(", ")}`);
          return withContext(g, async (ctx) => {
            if (!findNetwork(ctx.config.networks, network)) throw new UsageError(`--network: unknown network ${network}`);
            const account = await requireAccount(ctx.db, String(args.account));
            const queued = await queueTestDelivery({ db: ctx.db, config: ctx.config, nowMs: ctx.clock.now() }, account, {
              event,
              network,
            });
            if (!queued.ok) throw new CommandError(`${failureMessage(queued)}${webhookHint(queued.code, account.name)}`);
            const doc = { queued: true, delivery_id: queued.deliveryId };
            emit(g, doc, () => fields(Object.entries(doc)));
          });
        },
      }),
    },
  });
}
