import { type Static, Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { Kysely } from "kysely";
import { unknownNetwork } from "../config/networks.ts";
import { MAX_DELIVERY_RPS } from "../config/schema.ts";
import type { Executor } from "../db/database.ts";
import type { DB } from "../db/schema.ts";
import { webhookSwitchedOn } from "../delivery/endpoint-state.ts";
import { releaseRateSlots } from "../delivery/rate-slots.ts";
import type { Clock } from "../lib/clock.ts";
import { type InvalidInput, invalidInput } from "../lib/error-codes.ts";
import { describeValueError } from "../lib/value-errors.ts";
import { checkWebhookTarget, type Resolver, type TargetFailure } from "../net/target-guard.ts";
import { DEFAULT_FILTERS, type EventFilters, FILTER_KEYS, type FilterPatch, MAX_MIN_CONFIRMATIONS, mergeFilters } from "./filters.ts";

/** An account's address-watch webhook: where, whether, and which events. */
export type WebhookSettings = { url: string | null; enabled: boolean; events: EventFilters };

// Long enough for any real endpoint with a token in its query; short enough to keep rows small.
export const MAX_URL_LENGTH = 2048;

// Slugs are short (config caps them at 32); the cap keeps an echoed "Unknown network" small.
const NetworkList = T.Array(T.String({ maxLength: 64 }));

/** A patch of the flat event filters: every key optional, nothing else allowed. */
export const FilterPatchSchema = T.Object(
  {
    payment: T.Optional(T.Boolean()),
    payment_networks: T.Optional(NetworkList),
    payout: T.Optional(T.Boolean()),
    payout_networks: T.Optional(NetworkList),
    block: T.Optional(T.Boolean()),
    block_networks: T.Optional(NetworkList),
    min_confirmations: T.Optional(T.Integer({ minimum: 0, maximum: MAX_MIN_CONFIRMATIONS })),
  },
  { additionalProperties: false },
);

/** How the webhook is sent to: a patch, every key optional, nothing else allowed. */
export const DeliveryPatchSchema = T.Object(
  {
    max_rps: T.Optional(
      T.Integer({
        minimum: 0,
        maximum: MAX_DELIVERY_RPS,
        description: "Most deliveries a second to the webhook; 0: no limit. Left out: the stored value stays",
      }),
    ),
  },
  { additionalProperties: false },
);

/** The PUT /v1/address-watch/webhook body. */
export const WebhookUpdateSchema = T.Object(
  {
    url: T.Union([T.String(), T.Null()]),
    enabled: T.Boolean(),
    events: T.Optional(FilterPatchSchema),
    // Read-only in GET; accepted and ignored so a client can PUT back what it read.
    egress_ips: T.Optional(T.Unknown()),
    delivery: T.Optional(DeliveryPatchSchema),
  },
  { additionalProperties: false },
);

/** The validated update: the URL still needs the (networked) target check. */
export type WebhookUpdate = { url: string | null; enabled: boolean; events?: FilterPatch; maxRps?: number };

export type ParseOutcome<V> = { ok: true; value: V } | InvalidInput;

/**
 * Validates a PUT body without touching the network: shape, URL length, `enabled` needing a URL,
 * and every slug in a `*_networks` list being a configured network. `urlField` is what the URL's
 * sentences call it (`url` in a body; the CLI's `--url`).
 */
export function parseWebhookUpdate(body: unknown, isNetwork: (slug: string) => boolean, urlField = "url"): ParseOutcome<WebhookUpdate> {
  const first = Value.Errors(WebhookUpdateSchema, body).First();
  if (first) return fail(describeValueError(first));
  const input = body as Static<typeof WebhookUpdateSchema>;
  if (input.url !== null && input.url.length > MAX_URL_LENGTH) return fail(`${urlField} must be at most ${MAX_URL_LENGTH} characters`);
  if (input.enabled && input.url === null) return fail("url is required when enabled is true");
  const value: WebhookUpdate = { url: input.url, enabled: input.enabled };
  if (input.delivery?.max_rps !== undefined) value.maxRps = input.delivery.max_rps;
  if (input.events === undefined) return { ok: true, value };
  const events = validateFilterPatch(input.events, isNetwork);
  if (!events.ok) return events;
  return { ok: true, value: { ...value, events: events.value } };
}

/**
 * Checks an `events` patch: known keys only, booleans, string lists of configured networks, and
 * min_confirmations an integer 0..1000.
 * Lists come back without duplicates, in the order given.
 */
export function validateFilterPatch(patch: unknown, isNetwork: (slug: string) => boolean): ParseOutcome<FilterPatch> {
  const first = Value.Errors(FilterPatchSchema, patch).First();
  // Paths are reported relative to the body, as the client wrote them.
  if (first) return fail(describeValueError({ ...first, path: `/events${first.path}` }));
  const out: Record<string, boolean | string[] | number> = {};
  for (const [key, value] of Object.entries(patch as FilterPatch)) {
    if (!Array.isArray(value)) {
      out[key] = value;
      continue;
    }
    const unknown = value.find((slug) => !isNetwork(slug));
    if (unknown !== undefined) return fail(unknownNetwork(unknown));
    out[key] = [...new Set(value)];
  }
  return { ok: true, value: out as FilterPatch };
}

/** Reads stored filters; keys missing from older rows take their defaults. */
export function parseStoredFilters(json: string): EventFilters {
  const stored = JSON.parse(json) as Record<string, unknown>;
  const known = Object.fromEntries(Object.entries(stored).filter(([k]) => (FILTER_KEYS as readonly string[]).includes(k)));
  return mergeFilters(DEFAULT_FILTERS, known as FilterPatch);
}

/** The account's current webhook settings. */
export async function readWebhookSettings(db: Executor, accountId: string): Promise<WebhookSettings> {
  const row = await db
    .selectFrom("accounts")
    .select(["webhook_url", "webhook_enabled", "webhook_filters"])
    .where("id", "=", accountId)
    .executeTakeFirstOrThrow();
  return { url: row.webhook_url, enabled: row.webhook_enabled === 1, events: parseStoredFilters(row.webhook_filters) };
}

/** The settings with the account's own delivery rate limit: null while it set none (the config's applies). */
export type StoredWebhook = WebhookSettings & { maxRps: number | null };

/** The account's current webhook settings and its own delivery rate limit. */
export async function readStoredWebhook(db: Executor, accountId: string): Promise<StoredWebhook> {
  const row = await db
    .selectFrom("accounts")
    .select(["webhook_url", "webhook_enabled", "webhook_filters", "webhook_max_rps"])
    .where("id", "=", accountId)
    .executeTakeFirstOrThrow();
  return {
    url: row.webhook_url,
    enabled: row.webhook_enabled === 1,
    events: parseStoredFilters(row.webhook_filters),
    maxRps: row.webhook_max_rps === null ? null : Number(row.webhook_max_rps),
  };
}

export type WebhookSettingsDeps = {
  db: Kysely<DB>;
  clock: Clock;
  resolve: Resolver;
  allowPrivate: boolean;
  isNetwork: (slug: string) => boolean;
  /** `delivery.max_rps`: the limit of an account that set none. */
  defaultMaxRps: number;
};

/**
 * Validates and stores a PUT body, returning the settings now in force; a refused URL fails with
 * the target guard's code. The URL's DNS check runs before the transaction (no network I/O while
 * holding SQLite's writer lock); the filter merge runs inside it, so two concurrent PUTs of
 * different keys both keep their change.
 */
export async function updateWebhookSettings(
  deps: WebhookSettingsDeps,
  accountId: string,
  body: unknown,
  opts: { urlField?: string } = {},
): Promise<ParseOutcome<StoredWebhook> | TargetFailure> {
  const parsed = parseWebhookUpdate(body, deps.isNetwork, opts.urlField);
  if (!parsed.ok) return parsed;
  const update = parsed.value;
  if (update.url !== null) {
    const target = await checkWebhookTarget(update.url, { allowPrivate: deps.allowPrivate, resolve: deps.resolve, field: opts.urlField });
    if (!target.ok) return target;
  }
  const now = deps.clock.now();
  const settings = await deps.db.transaction().execute(async (trx) => {
    const current = await readStoredWebhook(trx, accountId);
    const next: StoredWebhook = {
      url: update.url,
      enabled: update.enabled,
      events: mergeFilters(current.events, update.events),
      maxRps: update.maxRps ?? current.maxRps,
    };
    await trx
      .updateTable("accounts")
      .set({
        webhook_url: next.url,
        webhook_enabled: next.enabled ? 1 : 0,
        webhook_filters: JSON.stringify(next.events),
        webhook_max_rps: next.maxRps,
        updated_at: now,
      })
      .where("id", "=", accountId)
      .execute();
    // Switched on again (after a run of failures disabled it, say) or pointed elsewhere: a clean
    // record for the endpoint, and what waited for it goes out now.
    if (next.enabled && (!current.enabled || current.url !== next.url)) await webhookSwitchedOn(trx, accountId, now);
    // A new rate: what waits for a slot of the old one is placed again at the new one.
    else if ((next.maxRps ?? deps.defaultMaxRps) !== (current.maxRps ?? deps.defaultMaxRps)) await releaseRateSlots(trx, accountId, now);
    return next;
  });
  return { ok: true, value: settings };
}

const fail = invalidInput;

/**
 * Switches the webhook off after a run of failed attempts (delivery/endpoint-disable.ts), in the
 * caller's transaction, if it is still enabled and still points at `url`: true when this call did
 * it. Events keep being stored and listed; a PUT with `enabled: true` switches it on again.
 */
export async function disableWebhookAfterFailures(db: Executor, accountId: string, url: string, nowMs: number): Promise<boolean> {
  const result = await db
    .updateTable("accounts")
    .set({ webhook_enabled: 0, updated_at: nowMs })
    .where("id", "=", accountId)
    .where("webhook_enabled", "=", 1)
    .where("webhook_url", "=", url)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
