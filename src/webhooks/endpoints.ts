import type { Executor } from "../db/database.ts";
import type { WebhookEndpoint } from "../db/schema.ts";
import { newTimeOrderedId } from "../lib/ids.ts";
import { type EventFilters, parseStoredFilters } from "./filters.ts";

// The `webhook_endpoints` table, written here and by the use cases of this folder only: an
// account's endpoints, each its URL, switch, filters, delivery rate and sealed secrets. Ids are
// time-ordered, so an account's endpoint with the smallest id is its oldest: its **default
// endpoint**, the one the address-watch webhook's routes (/v1/address-watch/webhook…) act on. Every account has one from its
// creation on (accounts/accounts.ts makes it), and the last one cannot be removed.

/** An endpoint's settings as the use cases read them (its secrets stay in the table, sealed). */
export type Endpoint = {
  id: string;
  accountId: string;
  url: string | null;
  enabled: boolean;
  description: string | null;
  events: EventFilters;
  /** Its own delivery rate limit; null: the config's `delivery.max_rps`. */
  maxRps: number | null;
  createdAt: number;
};

/** The settings a client changes (everything but the identity and the secrets). */
export type EndpointSettings = Pick<Endpoint, "url" | "enabled" | "description" | "events" | "maxRps">;

/** A new endpoint id: `ep_` and 24 hex digits, time-ordered (the oldest sorts first). */
export function newEndpointId(): string {
  return newTimeOrderedId("ep");
}

const SETTINGS_COLUMNS = ["id", "account_id", "url", "enabled", "description", "filters", "max_rps", "created_at"] as const;

function fromRow(r: Pick<WebhookEndpoint, (typeof SETTINGS_COLUMNS)[number]>): Endpoint {
  return {
    id: r.id,
    accountId: r.account_id,
    url: r.url,
    enabled: Number(r.enabled) === 1,
    description: r.description,
    events: parseStoredFilters(r.filters),
    maxRps: r.max_rps === null ? null : Number(r.max_rps),
    createdAt: Number(r.created_at),
  };
}

/** The account's endpoints, oldest (the default) first. */
export async function accountEndpoints(db: Executor, accountId: string): Promise<Endpoint[]> {
  const rows = await db.selectFrom("webhook_endpoints").select(SETTINGS_COLUMNS).where("account_id", "=", accountId).orderBy("id").execute();
  return rows.map(fromRow);
}

/** One of the account's endpoints; another account's, or none, is undefined. */
export async function findEndpoint(db: Executor, accountId: string, endpointId: string): Promise<Endpoint | undefined> {
  const row = await db.selectFrom("webhook_endpoints").select(SETTINGS_COLUMNS).where("id", "=", endpointId).where("account_id", "=", accountId).executeTakeFirst();
  return row && fromRow(row);
}

/** The account's default endpoint: its oldest. Every account has one. */
export async function defaultEndpoint(db: Executor, accountId: string): Promise<Endpoint> {
  const row = await db.selectFrom("webhook_endpoints").select(SETTINGS_COLUMNS).where("account_id", "=", accountId).orderBy("id").limit(1).executeTakeFirst();
  if (!row) throw new Error(`account ${accountId} has no webhook endpoint`);
  return fromRow(row);
}

/** Which endpoint a use case acts on: one of the account's by id (the endpoints API), or its default endpoint (the address-watch webhook's routes). */
export type EndpointRef = { endpointId: string } | "default";

/** The endpoint `ref` names; undefined when the id is not one of the account's. */
export async function endpointOf(db: Executor, accountId: string, ref: EndpointRef): Promise<Endpoint | undefined> {
  return ref === "default" ? defaultEndpoint(db, accountId) : findEndpoint(db, accountId, ref.endpointId);
}

/** How many endpoints the account has. */
export async function countEndpoints(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom("webhook_endpoints")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("account_id", "=", accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The most endpoints the account's plan allows (plans are accounts/'s; read here, never written). */
export async function endpointLimit(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom("accounts")
    .innerJoin("plans", "plans.name", "accounts.plan")
    .select("plans.max_endpoints")
    .where("accounts.id", "=", accountId)
    .executeTakeFirstOrThrow();
  return Number(row.max_endpoints);
}

/** Writes a new endpoint with its sealed secret, in the caller's transaction; returns it. */
export async function insertEndpoint(
  db: Executor,
  input: { id?: string; accountId: string; settings: EndpointSettings; sealedSecret: string; nowMs: number },
): Promise<Endpoint> {
  const id = input.id ?? newEndpointId();
  const s = input.settings;
  await db
    .insertInto("webhook_endpoints")
    .values({
      id,
      account_id: input.accountId,
      url: s.url,
      enabled: s.enabled ? 1 : 0,
      description: s.description,
      filters: JSON.stringify(s.events),
      max_rps: s.maxRps,
      secret_enc: input.sealedSecret,
      previous_secret_enc: null,
      previous_secret_expires_at: null,
      created_at: input.nowMs,
      updated_at: input.nowMs,
    })
    .execute();
  return { id, accountId: input.accountId, ...s, createdAt: input.nowMs };
}

/** Stores an endpoint's settings whole, in the caller's transaction. */
export async function saveEndpointSettings(db: Executor, endpointId: string, s: EndpointSettings, nowMs: number): Promise<void> {
  await db
    .updateTable("webhook_endpoints")
    .set({
      url: s.url,
      enabled: s.enabled ? 1 : 0,
      description: s.description,
      filters: JSON.stringify(s.events),
      max_rps: s.maxRps,
      updated_at: nowMs,
    })
    .where("id", "=", endpointId)
    .execute();
}

/** Deletes an endpoint's row and its health, in the caller's transaction. */
export async function deleteEndpointRow(db: Executor, endpointId: string): Promise<void> {
  await db.deleteFrom("endpoint_health").where("endpoint_id", "=", endpointId).execute();
  await db.deleteFrom("webhook_endpoints").where("id", "=", endpointId).execute();
}

/**
 * Switches an endpoint off if it is still enabled and still points at `url`, in the caller's
 * transaction: true when this call did it (another daemon, or the account holder, may have been first).
 */
export async function switchOffIfStill(db: Executor, endpointId: string, url: string, nowMs: number): Promise<boolean> {
  const result = await db
    .updateTable("webhook_endpoints")
    .set({ enabled: 0, updated_at: nowMs })
    .where("id", "=", endpointId)
    .where("enabled", "=", 1)
    .where("url", "=", url)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
