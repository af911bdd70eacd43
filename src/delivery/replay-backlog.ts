import { sql } from "kysely";
import type { Executor } from "../db/database.ts";
import type { EndpointOf } from "./endpoint-deliveries.ts";

// An account's replayed deliveries still waiting to be sent (pending, held or paused): what an
// events replay (webhooks/replay.ts) weighs before it queues more. Read on the partial index
// deliveries_replay_waiting, which holds exactly those rows, so the cost follows the replay
// backlog (at most `delivery.max_replay_pending` rows), never the outbox.

/** Spelt as the index's condition, literals included, so SQLite uses it. */
const WAITING = sql<boolean>`replay = 1 and status in ('pending', 'held', 'paused')`;

/** Event ids per IN (…) list, far below SQLite's bound-parameter cap. */
const IDS_PER_LIST = 500;

/** The account's waiting replayed deliveries, counted per event type and network (what prices them). */
export async function waitingReplays(db: Executor, accountId: string): Promise<{ eventType: string; network: string; count: number }[]> {
  const rows = await db
    .selectFrom("deliveries")
    .select(["event_type", "network", (eb) => eb.fn.countAll().as("n")])
    .where("account_id", "=", accountId)
    .where(WAITING)
    .groupBy(["event_type", "network"])
    .execute();
  return rows.map((r) => ({ eventType: r.event_type, network: r.network, count: Number(r.n) }));
}

/**
 * Which of these events already wait in a replay to the endpoint. Looked up by event id alone
 * (deliveries_event: a few rows an event), the account and endpoint checked here: given the account
 * too, SQLite walked the account's whole outbox on its account index instead.
 */
export async function eventsWaitingInReplay(db: Executor, e: EndpointOf, eventIds: readonly string[]): Promise<Set<string>> {
  const waiting = new Set<string>();
  for (let at = 0; at < eventIds.length; at += IDS_PER_LIST) {
    const rows = await db
      .selectFrom("deliveries")
      .select(["event_id", "account_id", "endpoint_id"])
      .where("event_id", "in", eventIds.slice(at, at + IDS_PER_LIST))
      .where(WAITING)
      .execute();
    for (const r of rows) if (r.event_id !== null && r.account_id === e.accountId && r.endpoint_id === e.endpointId) waiting.add(r.event_id);
  }
  return waiting;
}
