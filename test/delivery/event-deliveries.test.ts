import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { deliveriesOfEvent } from "../../src/delivery/delivery-log.ts";
import { insertDeliveryRows, storedDelivery } from "../support/delivery-rows.ts";
import { startTestDaemon, type TestDaemon } from "../support/harness.ts";
import { onPostgres } from "../support/postgres-only.ts";
import { sqlitePlan, statementsOf } from "../support/query-plan.ts";

// The cabinet's event page lists the event's deliveries (its first, a retraction, replays), newest
// first. An event has a few; its account may have millions. Asked with the account and the order
// in SQL, SQLite's planner (no statistics) walked every delivery of the account by its
// (account_id, created_at) index: 98 ms a page at 200,000. The plan is held on SQLite only (it
// plans by the query alone); what the page lists, on both databases.

const NOW = Date.now();
let td: TestDaemon;
let mine: string;
let theirs: string;

/** A delivery of `eventId` to `accountId`, queued `ago` ms before NOW. */
function ofEvent(id: string, accountId: string, eventId: string | null, ago: number) {
  return { ...storedDelivery({ id, accountId, kind: "event", status: "succeeded", at: NOW - ago }), event_id: eventId };
}

beforeAll(async () => {
  td = await startTestDaemon();
  mine = (await td.client({ name: "mine" })).accountId;
  theirs = (await td.client({ name: "theirs" })).accountId;
  await insertDeliveryRows(td.ctx.db, [
    ofEvent("dlv_a1", mine, "evt_1", 3000),
    ofEvent("dlv_a3", mine, "evt_1", 1000),
    // Two queued in the same millisecond: the greater id is the newer.
    ofEvent("dlv_a2", mine, "evt_1", 2000),
    ofEvent("dlv_a2b", mine, "evt_1", 2000),
    ofEvent("dlv_other_event", mine, "evt_2", 500),
    ofEvent("dlv_no_event", mine, null, 500),
    ofEvent("dlv_their", theirs, "evt_1", 100),
  ]);
});

afterAll(async () => {
  await td?.stop();
});

describe.skipIf(onPostgres)("an event's deliveries, as SQLite plans it", () => {
  test("found by the event's index, never by a walk of the account's deliveries", async () => {
    const queries = await statementsOf(td.ctx.db, (db) => deliveriesOfEvent(db, mine, "evt_1"));
    const plan = await sqlitePlan(td.ctx.db, queries[0]);
    expect(plan).toContain("SEARCH deliveries USING INDEX deliveries_event (event_id=?)");
    expect(plan).not.toContain("deliveries_account");
  });
});

describe("an event's deliveries", () => {
  test("are the account's own, newest first (by id within one millisecond)", async () => {
    expect((await deliveriesOfEvent(td.ctx.db, mine, "evt_1")).map((d) => d.id)).toEqual(["dlv_a3", "dlv_a2b", "dlv_a2", "dlv_a1"]);
    expect((await deliveriesOfEvent(td.ctx.db, theirs, "evt_1")).map((d) => d.id)).toEqual(["dlv_their"]);
    expect(await deliveriesOfEvent(td.ctx.db, mine, "evt_none")).toEqual([]);
  });
});
