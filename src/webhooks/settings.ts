import { type Static, type TSchema, Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { unknownNetwork } from "../config/networks.ts";
import { MAX_DELIVERY_RPS } from "../config/schema.ts";
import { type InvalidInput, invalidInput } from "../lib/error-codes.ts";
import { checkBody, describeValueError } from "../lib/value-errors.ts";
import { type FilterPatch, MAX_MIN_CONFIRMATIONS } from "./filters.ts";

// What a client may set on an endpoint, checked without touching the network (the URL's DNS check
// comes after, in the use case): the PUT /v1/address-watch/webhook body, and the endpoints
// API's create and PATCH bodies. Pure: schemas and parsers.

// Long enough for any real endpoint with a token in its query; short enough to keep rows small.
export const MAX_URL_LENGTH = 2048;

/** The longest description an endpoint may carry. */
export const MAX_DESCRIPTION_LENGTH = 200;

// Slugs are short (config caps them at 32); the cap keeps an echoed "Unknown network" small.
const NetworkList = T.Array(T.String({ maxLength: 64 }));

const watchFilterFields = {
  payment: T.Optional(T.Boolean()),
  payment_networks: T.Optional(NetworkList),
  payout: T.Optional(T.Boolean()),
  payout_networks: T.Optional(NetworkList),
  block: T.Optional(T.Boolean()),
  block_networks: T.Optional(NetworkList),
  min_confirmations: T.Optional(T.Integer({ minimum: 0, maximum: MAX_MIN_CONFIRMATIONS })),
};

/** A patch of the address-watch webhook's flat event filters: every key optional, nothing else allowed. */
export const FilterPatchSchema = T.Object(watchFilterFields, { additionalProperties: false });

/** A patch of an endpoint's filters: the address-watch webhook's keys and `payment_order`. */
export const EndpointFilterPatchSchema = T.Object(
  {
    ...watchFilterFields,
    payment_order: T.Optional(T.Boolean({ description: "Take payment-order webhooks while the account has no payments webhook_url (default true)" })),
  },
  { additionalProperties: false },
);

/** How the endpoint is sent to: a patch, every key optional, nothing else allowed. */
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

/** The PUT /v1/address-watch/webhook body (the account's default endpoint). */
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

const Description = T.Union([T.String({ maxLength: MAX_DESCRIPTION_LENGTH }), T.Null()], { description: `What the endpoint is for, at most ${MAX_DESCRIPTION_LENGTH} characters` });

/** The POST /v1/webhooks/endpoints body. */
export const EndpointCreateSchema = T.Object(
  {
    url: T.String({ description: "Absolute http(s) URL; private targets need delivery.allow_private_targets" }),
    enabled: T.Optional(T.Boolean({ description: "Deliver to it; default true" })),
    description: T.Optional(Description),
    events: T.Optional(EndpointFilterPatchSchema),
    delivery: T.Optional(DeliveryPatchSchema),
  },
  { additionalProperties: false },
);

/** The PATCH /v1/webhooks/endpoints/{id} body: only the keys given change (`events` keys as PUT /v1/address-watch/webhook). */
export const EndpointPatchSchema = T.Object(
  {
    url: T.Optional(T.Union([T.String(), T.Null()])),
    enabled: T.Optional(T.Boolean()),
    description: T.Optional(Description),
    events: T.Optional(EndpointFilterPatchSchema),
    delivery: T.Optional(DeliveryPatchSchema),
  },
  { additionalProperties: false },
);

/** What a body asks to change, checked but for the URL's (networked) target check; absent keys keep their value. */
export type SettingsChange = {
  url?: string | null;
  enabled?: boolean;
  description?: string | null;
  events?: FilterPatch;
  maxRps?: number;
};

export type ParseOutcome<V> = { ok: true; value: V } | InvalidInput;

/**
 * Checks a body against `schema` and the rules no schema says: the URL's length, and every slug in
 * a `*_networks` list being a configured network. `urlField` is what the URL's sentences call it
 * (`url` in a body; the CLI's `--url`). Whether `enabled` has a URL to go with is the caller's
 * check: it needs the stored URL when the body leaves it out.
 */
export function parseSettingsChange(
  schema: TSchema,
  body: unknown,
  isNetwork: (slug: string) => boolean,
  opts: {
    urlField?: string;
    /** The `events` keys the body may hold: an endpoint's (the default) or the address-watch webhook's. */
    filters?: typeof FilterPatchSchema | typeof EndpointFilterPatchSchema;
    beforeEvents?: (change: SettingsChange) => InvalidInput | null;
  } = {},
): ParseOutcome<SettingsChange> {
  const checked = checkBody(schema, body);
  if (!checked.ok) return checked;
  const input = checked.body as { url?: string | null; enabled?: boolean; description?: string | null; events?: unknown; delivery?: { max_rps?: number } };
  if (typeof input.url === "string" && input.url.length > MAX_URL_LENGTH) return invalidInput(`${opts.urlField ?? "url"} must be at most ${MAX_URL_LENGTH} characters`);
  const value: SettingsChange = {};
  if (input.url !== undefined) value.url = input.url;
  if (input.enabled !== undefined) value.enabled = input.enabled;
  if (input.description !== undefined) value.description = input.description;
  if (input.delivery?.max_rps !== undefined) value.maxRps = input.delivery.max_rps;
  const refused = opts.beforeEvents?.(value);
  if (refused) return refused;
  if (input.events === undefined) return { ok: true, value };
  const events = validateFilterPatch(opts.filters ?? EndpointFilterPatchSchema, input.events, isNetwork);
  if (!events.ok) return events;
  return { ok: true, value: { ...value, events: events.value } };
}

/** The validated PUT /v1/address-watch/webhook: its `url` and `enabled` are always given. */
export type WebhookUpdate = SettingsChange & { url: string | null; enabled: boolean };

/**
 * Validates a PUT /v1/address-watch/webhook body without touching the network: shape, URL length,
 * `enabled` needing a URL, and every slug in a `*_networks` list being a configured network.
 */
export function parseWebhookUpdate(body: unknown, isNetwork: (slug: string) => boolean, urlField = "url"): ParseOutcome<WebhookUpdate> {
  const parsed = parseSettingsChange(WebhookUpdateSchema, body, isNetwork, {
    urlField,
    filters: FilterPatchSchema,
    beforeEvents: (change) => (change.enabled && change.url === null ? URL_REQUIRED : null),
  });
  if (!parsed.ok) return parsed;
  const input = body as Static<typeof WebhookUpdateSchema>;
  return { ok: true, value: { ...parsed.value, url: input.url, enabled: input.enabled } };
}

/** `enabled: true` needs a URL to send to. */
export const URL_REQUIRED = invalidInput("url is required when enabled is true");

/**
 * Checks an `events` patch: known keys only, booleans, string lists of configured networks, and
 * min_confirmations an integer 0..1000. Lists come back without duplicates, in the order given.
 */
export function validateFilterPatch(
  schema: typeof FilterPatchSchema | typeof EndpointFilterPatchSchema,
  patch: unknown,
  isNetwork: (slug: string) => boolean,
): ParseOutcome<FilterPatch> {
  const first = Value.Errors(schema, patch).First();
  // Paths are reported relative to the body, as the client wrote them.
  if (first) return invalidInput(describeValueError({ ...first, path: `/events${first.path}` }));
  const out: Record<string, boolean | string[] | number> = {};
  for (const [key, value] of Object.entries(patch as FilterPatch)) {
    if (!Array.isArray(value)) {
      out[key] = value;
      continue;
    }
    const unknown = value.find((slug) => !isNetwork(slug));
    if (unknown !== undefined) return invalidInput(unknownNetwork(unknown));
    out[key] = [...new Set(value)];
  }
  return { ok: true, value: out as FilterPatch };
}
