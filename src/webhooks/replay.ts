import { type Static, Type as T } from "@sinclair/typebox";
import { deliveryPrice } from "../billing/pricing.ts";
import { findNetwork, unknownNetwork } from "../config/networks.ts";
import type { Config, NetworkConfig } from "../config/schema.ts";
import type { Db, Executor } from "../db/database.ts";
import { lockAccount } from "../db/primitives.ts";
import { type EnqueueInput, enqueueDeliveries } from "../delivery/outbox.ts";
import { eventsWaitingInReplay, waitingReplays } from "../delivery/replay-backlog.ts";
import type { Clock } from "../lib/clock.ts";
import { type Failure, fail, type InvalidInput, invalidInput, type Result } from "../lib/error-codes.ts";
import { unixSecondsSchema } from "../lib/time.ts";
import { yieldToEventLoop } from "../lib/yield.ts";
import { checkBody } from "../lib/value-errors.ts";
import { holdUntilHeight } from "../watch/confirmations.ts";
import { type ListedEvent, listEventRows, receivedSeq } from "../watch/events.ts";
import { EVENT_TYPES } from "../watch/list-events.ts";
import { type Endpoint, type EndpointRef, endpointOf } from "./endpoints.ts";
import { passesFilters } from "./filters.ts";

// The events replay (docs/webhooks.md): stored events sent again as new deliveries to one
// endpoint, for a receiver that lost data or moved to a new URL. It reads watch/'s events and
// queues through delivery/outbox.ts; the chain tips (ingest/'s, which stands above this folder)
// come in as a function, for the min_confirmations hold.

/** The most events one replay call looks at; `next_after` continues from there. */
export const MAX_REPLAYED_PER_CALL = 10_000;

/** The body of POST /v1/address-watch/events/replay: `since` or `after`, then what narrows it. */
export const ReplaySchema = T.Object(
  {
    since: T.Optional(unixSecondsSchema("Unix seconds: replay events stored at or after this instant (give this or `after`)")),
    after: T.Optional(T.String({ minLength: 1, maxLength: 64, description: "An event id (`next_after` of the previous call): replay the events after it (give this or `since`)" })),
    until: T.Optional(unixSecondsSchema("Unix seconds: only events stored before this instant")),
    types: T.Optional(T.Array(T.Union(EVENT_TYPES.map((t) => T.Literal(t))), { minItems: 1, maxItems: EVENT_TYPES.length, description: "Only these event types" })),
    networks: T.Optional(T.Array(T.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 64, description: "Only these network slugs" })),
  },
  { additionalProperties: false },
);

export type ReplayBody = Static<typeof ReplaySchema>;

/** How many deliveries were queued, and the cursor to pass as `after` for the rest (null: done). */
export type Replayed = { queued: number; nextAfter: string | null };

export type ReplayResult = Result<
  Replayed,
  InvalidInput | Failure<"NO_WEBHOOK_URL" | "WEBHOOK_DISABLED" | "REPLAY_BACKLOG_FULL" | "INSUFFICIENT_CREDITS" | "ENDPOINT_NOT_FOUND">
>;

/** The tip each of these networks' confirmations count against (ingest/quorum-heights.ts, confirmationTips: the stored tip, capped where an upstream quorum has not agreed). */
export type ChainTips = (db: Executor, networks: readonly string[]) => Promise<ReadonlyMap<string, number>>;

export type ReplayDeps = {
  db: Db;
  clock: Clock;
  chainTips: ChainTips;
  /** Networks (and their block prices), billing, and `delivery.max_replay_pending`. */
  config: Pick<Config, "networks" | "billing" | "environment" | "delivery">;
  /** Called when something was queued, so the delivery loop sends it at once. */
  wakeDelivery: () => void;
  /** Events looked at per call: MAX_REPLAYED_PER_CALL unless told (tests walk pages with fewer). */
  pageSize?: number;
};

/**
 * Queues a NEW delivery (new id, the stored body byte for byte, marked replay) to one endpoint (the
 * default one for POST /v1/address-watch/events/replay) of each stored event of the account in the asked stretch,
 * oldest first, that the endpoint's current filters pass and the request's `types` and `networks`
 * keep. The endpoint must be enabled. At most MAX_REPLAYED_PER_CALL events are looked at a
 * call; `nextAfter` is the last of them when more follow. An event a reorg removed goes as it is
 * listed (`"removed": true`). A wallet or block event whose block has fewer confirmations than the
 * endpoint's min_confirmations waits `held`, like its first delivery. The deliveries go to the
 * endpoint as it is when they are sent, and are billed like any other.
 *
 * Bounded per account (docs/webhooks.md): an event already waiting in a replay to the endpoint is passed over;
 * queuing stops where the account's waiting replayed deliveries would pass
 * `delivery.max_replay_pending`, or where the balance, less what the waiting ones will cost, could
 * not pay for the next one; `nextAfter` then continues from that event. A call that could queue
 * nothing for either reason is refused whole (REPLAY_BACKLOG_FULL, INSUFFICIENT_CREDITS), a full
 * backlog before any event is read.
 */
export async function replayEvents(deps: ReplayDeps, accountId: string, ref: EndpointRef, body: unknown): Promise<ReplayResult> {
  const endpoint = await endpointOf(deps.db, accountId, ref);
  if (!endpoint) return fail("ENDPOINT_NOT_FOUND");
  const checked = checkBody(ReplaySchema, body);
  if (!checked.ok) return checked;
  const request = checked.body;
  const nowMs = deps.clock.now();
  const refused = checkStretch(request, nowMs) ?? checkNetworks(request.networks, deps.config.networks);
  if (refused) return refused;
  if (endpoint.url === null) return fail("NO_WEBHOOK_URL");
  if (!endpoint.enabled) return fail("WEBHOOK_DISABLED", "Webhook is disabled.");

  let afterSeq = 0;
  if (request.after !== undefined) {
    const seq = await receivedSeq(deps.db, accountId, request.after);
    if (seq === null) return invalidInput(`Unknown cursor: ${request.after}`);
    afterSeq = seq;
  }
  const limit = deps.pageSize ?? MAX_REPLAYED_PER_CALL;
  // Due one millisecond apart in listing order, none later than now: the loop claims due rows in
  // that order, so they go out oldest first.
  const firstDue = nowMs - limit + 1;
  const priceOf = (e: { type: string; network: string }) => deliveryPrice(deps.config, { kind: "event", event_type: e.type, network: e.network });
  let looked = 0;
  let queued = 0;
  let lastLooked: string | null = null;
  let more = true;
  // A chunk at a time, each weighed and written in a short transaction of its own with the event
  // loop let run in between: a replay of 10,000 events holds neither SQLite's one writer nor the
  // thread (its driver answers synchronously) for long, so other accounts' ingests and deliveries
  // go on meanwhile.
  while (looked < limit) {
    if (looked > 0) await yieldToEventLoop();
    // A full backlog takes nothing more: stop before reading events it could only pass over.
    if ((await replayRoom(deps.db, deps.config, accountId, priceOf)).deliveries <= 0) {
      if (queued === 0) return fail("REPLAY_BACKLOG_FULL");
      return { ok: true, queued, nextAfter: lastLooked };
    }
    const { rows, more: after } = await listEventRows(deps.db, {
      accountId,
      afterSeq,
      limit: Math.min(ROWS_PER_CHUNK, limit - looked),
      types: request.types,
      networks: request.networks,
      createdFrom: request.since === undefined ? undefined : request.since * 1000,
      createdBefore: request.until === undefined ? undefined : request.until * 1000,
    });
    const wanted = rows.map(withBodyFacts).filter((e) => passesFilters(endpoint.events, e.type, e.direction, e.network));
    const tips = await deps.chainTips(deps.db, wanted.map((e) => e.network));
    const at = looked;
    const taken = await deps.db.transaction().execute(async (trx) => {
      // The account locked, and its backlog counted afresh for every chunk: two replays at once
      // cannot both count the same room in the backlog or the same credits.
      await lockAccount(trx, accountId);
      const room = await replayRoom(trx, deps.config, accountId, priceOf);
      const already = await eventsWaitingInReplay(trx, { accountId, endpointId: endpoint.id }, wanted.map((e) => e.id));
      const fit = takeWithinRoom(wanted.filter((e) => !already.has(e.id)), room, priceOf);
      const position = new Map(rows.map((r, i) => [r.id, at + i]));
      const deliveries = fit.events.map((e): EnqueueInput => ({ ...replayDelivery(endpoint, e, tips, nowMs), dueAt: firstDue + (position.get(e.id) ?? 0) }));
      if (deliveries.length > 0) await enqueueDeliveries(trx, deliveries);
      return fit;
    });
    queued += taken.events.length;
    if (taken.stopped) {
      if (queued === 0) return fail(taken.stopped.by);
      // Continue from the event that did not fit: the cursor is the one listed before it (an earlier one was queued, so there is one).
      const stoppedAt = rows.findIndex((r) => r.id === taken.stopped?.at);
      deps.wakeDelivery();
      return { ok: true, queued, nextAfter: stoppedAt > 0 ? rows[stoppedAt - 1].id : lastLooked };
    }
    if (queued > 0) deps.wakeDelivery();
    looked += rows.length;
    more = after;
    if (rows.length === 0) break;
    lastLooked = rows[rows.length - 1].id;
    afterSeq = rows[rows.length - 1].seq;
    if (!after) break;
  }
  return { ok: true, queued, nextAfter: more && lastLooked !== null ? lastLooked : null };
}

/** Events listed, weighed and written per transaction. */
const ROWS_PER_CHUNK = 500;

/**
 * Room left in the account's replay backlog now: deliveries before `delivery.max_replay_pending`,
 * and credits of its balance beyond the price of the replayed deliveries already waiting.
 */
async function replayRoom(trx: Executor, config: ReplayDeps["config"], accountId: string, priceOf: (e: { type: string; network: string }) => number): Promise<Room> {
  const waiting = await waitingReplays(trx, accountId);
  const account = await trx.selectFrom("accounts").select("credits").where("id", "=", accountId).executeTakeFirstOrThrow();
  return {
    deliveries: config.delivery.max_replay_pending - waiting.reduce((n, w) => n + w.count, 0),
    credits: Number(account.credits) - waiting.reduce((sum, w) => sum + w.count * priceOf({ type: w.eventType, network: w.network }), 0),
  };
}

/** Room left in the account's replay backlog: deliveries, and credits its balance has beyond the waiting ones' prices. */
type Room = { deliveries: number; credits: number };

/**
 * The events that fit the room, in order, and the first one that did not with the limit it met
 * (`stopped` null: all fit). Free events (price 0: billing off, a block on a network whose blocks
 * cost nothing) use only backlog room.
 */
export function takeWithinRoom<E extends { id: string; type: string; network: string }>(
  events: readonly E[],
  room: Room,
  priceOf: (e: E) => number,
): { events: E[]; stopped: { at: string; by: "REPLAY_BACKLOG_FULL" | "INSUFFICIENT_CREDITS" } | null } {
  let { deliveries, credits } = room;
  for (const [i, e] of events.entries()) {
    const price = priceOf(e);
    // Credits first: a backlog the balance cannot pay for does not drain by waiting.
    const stoppedBy = price > credits ? "INSUFFICIENT_CREDITS" : deliveries <= 0 ? "REPLAY_BACKLOG_FULL" : null;
    if (stoppedBy) return { events: events.slice(0, i), stopped: { at: e.id, by: stoppedBy } };
    deliveries -= 1;
    credits -= price;
  }
  return { events: [...events], stopped: null };
}

/** `since` or `after` (exactly one), `since` not in the future, `until` after `since`. */
function checkStretch(r: ReplayBody, nowMs: number): InvalidInput | null {
  if (r.since === undefined && r.after === undefined) return invalidInput("since or after is required");
  if (r.since !== undefined && r.after !== undefined) return invalidInput("give since or after, not both");
  if (r.since !== undefined && r.since * 1000 > nowMs) return invalidInput("since must not be in the future");
  if (r.since !== undefined && r.until !== undefined && r.until <= r.since) return invalidInput("until must be after since");
  return null;
}

function checkNetworks(slugs: readonly string[] | undefined, networks: Record<string, NetworkConfig>): InvalidInput | null {
  const unknown = slugs?.find((slug) => !findNetwork(networks, slug));
  return unknown === undefined ? null : invalidInput(unknownNetwork(unknown));
}

type ReplayedEvent = ListedEvent & { direction: "in" | "out" | null; removed: boolean };

/** What the filters and the hold read of a body: a wallet event's direction, and whether a reorg removed it. */
function withBodyFacts(e: ListedEvent): ReplayedEvent {
  const parsed = JSON.parse(e.body) as { direction?: unknown; removed?: unknown };
  const direction = parsed.direction === "in" || parsed.direction === "out" ? parsed.direction : null;
  return { ...e, direction, removed: parsed.removed === true };
}

function replayDelivery(endpoint: Endpoint, e: ReplayedEvent, tips: ReadonlyMap<string, number>, nowMs: number): EnqueueInput {
  // A removal goes out at once, as the reorg's own removal delivery does (delivery/outbox.ts).
  const hold =
    e.removed || e.block_height === null
      ? null
      : holdUntilHeight(endpoint.events.min_confirmations, Number(e.block_height), tips.get(e.network) ?? Number(e.block_height) - 1);
  return {
    accountId: endpoint.accountId,
    endpointId: endpoint.id,
    kind: "event",
    eventType: e.type,
    network: e.network,
    eventId: e.id,
    body: e.body,
    nowMs,
    holdUntilHeight: hold,
    replay: true,
  };
}
