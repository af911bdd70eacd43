import { defineCommand } from "citty";
import { MAX_DELIVERY_RPS } from "../../src/config/schema.ts";
import { failureMessage } from "../../src/lib/failures.ts";
import { systemResolver } from "../../src/net/target-guard.ts";
import { readWebhook, updateWebhook } from "../../src/webhooks/default-endpoint.ts";
import { rotatedView } from "../../src/webhooks/endpoint-secret.ts";
import { rotateSecret } from "../../src/webhooks/rotate-secret.ts";
import { TEST_EVENTS } from "../../src/webhooks/samples.ts";
import { withContext } from "../context.ts";
import { CommandError, type Globals } from "../globals.ts";
import { emit, fields } from "../output.ts";
import { globalArgs, requireAccount } from "./common.ts";
import { parseGrace, parseMaxRps, runTest } from "./webhook-common.ts";
import { endpointsCommand } from "./webhook-endpoints.ts";

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
            const current = await readWebhook(ctx, account.id);
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
            const rotated = await rotateSecret(ctx, account.id, "default", { grace_seconds: graceSeconds });
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
        run: ({ args }) => runTest(g, args, "default"),
      }),
      endpoints: endpointsCommand(g),
    },
  });
}
