import { defineCommand } from "citty";
import { MAX_DELIVERY_RPS } from "../../src/config/schema.ts";
import type { Context } from "../../src/context.ts";
import type { Failure } from "../../src/lib/error-codes.ts";
import { failureMessage } from "../../src/lib/failures.ts";
import { systemResolver } from "../../src/net/target-guard.ts";
import { TEST_EVENTS } from "../../src/webhooks/samples.ts";
import { MAX_DESCRIPTION_LENGTH } from "../../src/webhooks/settings.ts";
import { createEndpoint, listEndpoints, patchEndpoint, removeEndpoint } from "../../src/webhooks/manage-endpoints.ts";
import { rfc3339 } from "../../src/lib/time.ts";
import { rotateSecret } from "../../src/webhooks/rotate-secret.ts";
import { withContext } from "../context.ts";
import { CommandError, type Globals, UsageError } from "../globals.ts";
import { emit, fields, table } from "../output.ts";
import { globalArgs, requireAccount } from "./common.ts";
import { parseGrace, parseMaxRps, runTest } from "./webhook-common.ts";

// `chainwatch webhook endpoints list|add|set|remove|rotate|test`: an account's webhook endpoints,
// with the rules of the endpoints API (POST, GET, PATCH, DELETE /v1/webhooks/endpoints…).

const account = { type: "string", description: "Account name or id", required: true } as const;
const endpoint = { type: "positional", description: "The endpoint's id (ep_…)", required: true } as const;

/** `--events JSON`: an object of filter keys (the API's `events`), or a usage error; undefined when left out. */
function parseEvents(raw: unknown): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(raw));
  } catch {
    parsed = null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new UsageError('--events must be a JSON object of filter keys, e.g. {"block":false,"payment_order":true}');
  return parsed as Record<string, unknown>;
}

/** `--description D`: at most MAX_DESCRIPTION_LENGTH characters, or a usage error; undefined when left out. */
function parseDescription(raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  const text = String(raw);
  if (text.length > MAX_DESCRIPTION_LENGTH) throw new UsageError(`--description must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
  return text;
}

/** The API body the settings flags stand for: only the flags given. */
function settingsBody(args: Record<string, unknown>): Record<string, unknown> {
  const maxRps = parseMaxRps(args["max-rps"]);
  const events = parseEvents(args.events);
  const description = parseDescription(args.description);
  return {
    ...(args.url === undefined ? {} : { url: String(args.url) }),
    ...(typeof args.enabled === "boolean" ? { enabled: args.enabled } : {}),
    ...(description === undefined ? {} : { description }),
    ...(events === undefined ? {} : { events }),
    ...(maxRps === undefined ? {} : { delivery: { max_rps: maxRps } }),
  };
}

const settingsArgs = {
  url: { type: "string", description: "Absolute http(s) URL; private targets need delivery.allow_private_targets" },
  enabled: { type: "boolean", description: "Deliver to it (--no-enabled: stop)" },
  description: { type: "string", description: "What the endpoint is for (at most 200 characters)" },
  events: { type: "string", description: 'Filter keys to set, as JSON: {"payment":true,"block_networks":["eth"],"min_confirmations":3,"payment_order":false}' },
  "max-rps": { type: "string", description: `Most deliveries a second to it, 0 to ${MAX_DELIVERY_RPS} (0: no limit)` },
} as const;

/** Runs `fn` for the account the command names, printing its failure as the API words it. */
function forAccount(g: Globals, name: unknown, fn: (ctx: Context, accountId: string) => Promise<void>): Promise<void> {
  return withContext(g, async (ctx) => fn(ctx, (await requireAccount(ctx.db, String(name))).id));
}

/**
 * A use case's failure, for the command line: an unknown endpoint named with the id given, a
 * private target with the config key that allows it (the URL is the --url flag there).
 */
function refused(f: Failure, endpointId?: string): CommandError {
  if (f.code === "ENDPOINT_NOT_FOUND" && endpointId !== undefined) return new CommandError(`no such endpoint of this account: ${endpointId}`);
  const hint = f.code === "PRIVATE_ADDRESS" ? " (a receiver on this machine needs delivery.allow_private_targets = true in the config)" : "";
  return new CommandError(`${failureMessage(f)}${hint}`);
}

export function endpointsCommand(g: Globals) {
  return defineCommand({
    meta: { name: "endpoints", description: "An account's webhook endpoints: each its own URL, filters, rate, secret and health" },
    subCommands: {
      list: defineCommand({
        meta: { name: "list", description: "The account's endpoints, oldest (the default) first; no secrets" },
        args: { ...globalArgs, account },
        run: ({ args }) =>
          forAccount(g, args.account, async (ctx, accountId) => {
            const doc = await listEndpoints(ctx, accountId);
            emit(g, doc, () =>
              table(
                ["ID", "URL", "ENABLED", "MAX_RPS", "DESCRIPTION"],
                doc.endpoints.map((e) => [e.endpoint_id, e.url, e.enabled ? "yes" : "no", e.delivery.max_rps, e.description]),
              ),
            );
          }),
      }),
      add: defineCommand({
        meta: { name: "add", description: "Add an endpoint (the rules of POST /v1/webhooks/endpoints); its secret is printed this once" },
        args: { ...globalArgs, account, ...settingsArgs, url: { ...settingsArgs.url, required: true } },
        run: ({ args }) => {
          const body = settingsBody(args);
          return forAccount(g, args.account, async (ctx, accountId) => {
            const created = await createEndpoint({ ...ctx, resolveHost: systemResolver }, accountId, body, { urlField: "--url" });
            if (!created.ok) throw refused(created);
            emit(g, created.endpoint, () => fields(Object.entries(created.endpoint)));
          });
        },
      }),
      set: defineCommand({
        meta: { name: "set", description: "Change an endpoint: only the flags given (the rules of PATCH /v1/webhooks/endpoints/{id})" },
        args: { ...globalArgs, endpoint, account, ...settingsArgs },
        run: ({ args }) => {
          const body = settingsBody(args);
          return forAccount(g, args.account, async (ctx, accountId) => {
            const patched = await patchEndpoint({ ...ctx, resolveHost: systemResolver }, accountId, String(args.endpoint), body, { urlField: "--url" });
            if (!patched.ok) throw refused(patched, String(args.endpoint));
            emit(g, patched.endpoint, () => fields(Object.entries(patched.endpoint)));
          });
        },
      }),
      remove: defineCommand({
        meta: { name: "remove", description: "Remove an endpoint; its deliveries still waiting end failed (an account keeps at least one endpoint)" },
        args: { ...globalArgs, endpoint, account },
        run: ({ args }) =>
          forAccount(g, args.account, async (ctx, accountId) => {
            const removed = await removeEndpoint(ctx, accountId, String(args.endpoint));
            if (!removed.ok) throw refused(removed, String(args.endpoint));
            const doc = { endpoint_id: removed.endpoint_id, deleted: removed.deleted };
            emit(g, doc, () => fields(Object.entries(doc)));
          }),
      }),
      rotate: defineCommand({
        meta: { name: "rotate", description: "Give an endpoint a new secret (printed this once); the old one keeps signing beside it for --grace" },
        args: {
          ...globalArgs,
          endpoint,
          account,
          grace: { type: "string", description: "How long the old secret keeps signing too: 0 (ends at once), 30m, 24h, 7d (default 24h, at most 7d)" },
        },
        run: ({ args }) => {
          const graceSeconds = parseGrace(args.grace);
          return forAccount(g, args.account, async (ctx, accountId) => {
            const rotated = await rotateSecret(ctx, accountId, { endpointId: String(args.endpoint) }, { grace_seconds: graceSeconds });
            if (!rotated.ok) throw refused(rotated, String(args.endpoint));
            const doc = { endpoint_id: rotated.endpointId, secret: rotated.secret, previous_expires_at: rfc3339(rotated.previousExpiresAt) };
            emit(g, doc, () => fields(Object.entries(doc)));
          });
        },
      }),
      test: defineCommand({
        meta: { name: "test", description: "Queue a test delivery to an endpoint, even while it is disabled (never billed); the running daemon sends it" },
        args: {
          ...globalArgs,
          endpoint,
          account,
          event: { type: "string", description: TEST_EVENTS.join(" | "), required: true },
          network: { type: "string", description: "Network slug", required: true },
        },
        run: ({ args }) => runTest(g, args, { endpointId: String(args.endpoint) }),
      }),
    },
  });
}
