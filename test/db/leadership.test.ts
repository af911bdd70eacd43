import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { type Db, migrate, openDatabase } from "../../src/db/database.ts";
import { createLeadership, FOLLOWER_LOCK_NAMESPACE, followerLockKey, type Lead, LeadLost, type Leadership } from "../../src/db/leadership.ts";
import { until } from "../delivery/fixtures.ts";
import { onPostgres, testDatabaseUrl } from "../support/harness.ts";
import { postgresOnly } from "../support/postgres-only.ts";

// The leadership primitive (docs/operations.md): on PostgreSQL a session advisory lock per network on a
// connection of its own, lost with that connection; on SQLite this daemon always leads. Either way
// every take of the lead takes the next fencing epoch, and a write fenced with a spent one is refused.

let dir: string;
let url: string;
let db: Db;
const opened: Leadership[] = [];
const lost: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-leadership-"));
  url = testDatabaseUrl(dir);
  db = openDatabase(url);
  const migrated = await migrate(db);
  if (!migrated.ok) throw new Error(migrated.error);
});
afterAll(async () => {
  for (const l of opened) await l.close();
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const leadership = (name: string) => {
  const l = createLeadership({ db, url, onLost: (e) => lost.push(`${name}: ${String(e)}`) });
  opened.push(l);
  return l;
};

const epochOf = async (network: string) => {
  const row = await db.selectFrom("lead_epochs").select("epoch").where("name", "=", `follower:${network}`).executeTakeFirst();
  return row ? Number(row.epoch) : null;
};

/** Writes a marker row in a transaction fenced by `lead`; the marker is there only if the fence let it through. */
const fencedWrite = (lead: Lead, key: string) =>
  db.transaction().execute(async (trx) => {
    await lead.fence(trx);
    await trx.insertInto("meta").values({ key, value: "1" }).execute();
  });
const marker = async (key: string) => (await db.selectFrom("meta").select("key").where("key", "=", key).executeTakeFirst()) !== undefined;

test("the lock key: the follower namespace and the CRC-32 of the slug as a signed int4, the same on every call", () => {
  expect(FOLLOWER_LOCK_NAMESPACE).toBe(0x63776c64);
  expect(followerLockKey("anv")).toEqual([0x63776c64, -196285915]);
  expect(followerLockKey("eth")).toEqual(followerLockKey("eth"));
  expect(followerLockKey("eth")).not.toEqual(followerLockKey("anv"));
});

describe.skipIf(onPostgres)("on SQLite", () => {
  test("a follower always leads: one daemon per database file", async () => {
    const a = leadership("a").lead("anv");
    const b = leadership("b").lead("anv");
    expect([await a.acquire(), await b.acquire(), a.held(), b.held()]).toEqual([true, true, true, true]);
  });

  test("each daemon's first poll takes the next epoch; the earlier daemon's fenced writes are refused and roll back", async () => {
    const a = leadership("a").lead("sq");
    expect(await a.acquire()).toBe(true);
    expect(await epochOf("sq")).toBe(1);
    // Asking again keeps the epoch: only a take of the lead takes a new one.
    expect(await a.acquire()).toBe(true);
    expect(await epochOf("sq")).toBe(1);
    await fencedWrite(a, "sq-a1");
    // The next `serve` on the file (the first one died; its lock file let the next one start).
    const b = leadership("b").lead("sq");
    expect(await b.acquire()).toBe(true);
    expect(await epochOf("sq")).toBe(2);
    await expect(fencedWrite(a, "sq-a2")).rejects.toBeInstanceOf(LeadLost);
    expect(await marker("sq-a2")).toBe(false);
    expect(a.held()).toBe(false);
    await fencedWrite(b, "sq-b1");
    expect([await marker("sq-a1"), await marker("sq-b1")]).toEqual([true, true]);
  });
});

describe.skipIf(!onPostgres)(postgresOnly("on PostgreSQL"), () => {
  test("one of two daemons leads a network; the other takes over once the first one's connection ends", async () => {
    const a = leadership("a");
    const b = leadership("b");
    expect(await a.lead("anv").acquire()).toBe(true);
    // Asking again confirms the lead (no second, re-entrant lock to release).
    expect(await a.lead("anv").acquire()).toBe(true);
    expect(await b.lead("anv").acquire()).toBe(false);
    expect(b.lead("anv").held()).toBe(false);
    // Networks are led independently.
    expect(await b.lead("other").acquire()).toBe(true);
    expect(await a.lead("other").acquire()).toBe(false);
    const locks = await sql<{ n: number }>`select count(*) as n from pg_locks where locktype = 'advisory' and classid = ${FOLLOWER_LOCK_NAMESPACE} and objsubid = 2 and granted and database = (select oid from pg_database where datname = current_database())`.execute(db);
    expect(locks.rows[0].n).toBe(2);

    await a.close();
    expect(a.lead("anv").held()).toBe(false);
    expect(await b.lead("anv").acquire()).toBe(true);
    expect(await a.lead("anv").acquire()).toBe(false);
    expect(lost).toEqual([]);
    await b.close();
  });

  test("a lock connection killed under a leader: it stops leading at once (no query needed) and another daemon takes over", async () => {
    const a = leadership("a");
    const b = leadership("b");
    const lead = a.lead("killed");
    expect(await lead.acquire()).toBe(true);
    expect(await b.lead("killed").acquire()).toBe(false);
    const [, objid] = followerLockKey("killed");
    // The backend holding the lock, terminated from outside (as a crash or a network cut would end it).
    const holder = await sql<{ pid: number }>`select pid from pg_locks where locktype = 'advisory' and classid = ${FOLLOWER_LOCK_NAMESPACE} and objid::bigint = ${(objid >>> 0).toString()}::bigint and objsubid = 2 and granted and database = (select oid from pg_database where datname = current_database())`.execute(db);
    expect(holder.rows).toHaveLength(1);
    await sql`select pg_terminate_backend(${holder.rows[0].pid})`.execute(db);
    await until(async () => lead.held(), (held) => !held);
    expect(lost).toHaveLength(1);
    expect(lost[0]).toStartWith("a: ");
    // The server tells the client its backend is ending before the backend has let its locks go:
    // the other daemon takes the lead on a try soon after, as its next poll would.
    expect(await until(() => b.lead("killed").acquire(), (taken) => taken)).toBe(true);
    // The first daemon reconnects on its next try and stands by.
    expect(await lead.acquire()).toBe(false);
    expect(lead.held()).toBe(false);
  });

  test("a take-over takes the next epoch on the lock's session; the old leader's fenced writes are refused even before it notices", async () => {
    const a = leadership("a").lead("pgf");
    const b = leadership("b").lead("pgf");
    expect(await a.acquire()).toBe(true);
    expect(await b.acquire()).toBe(false);
    expect(await epochOf("pgf")).toBe(1);
    // A standby asking takes no epoch.
    expect(await b.acquire()).toBe(false);
    expect(await epochOf("pgf")).toBe(1);
    await fencedWrite(a, "pgf-a1");
    const [, objid] = followerLockKey("pgf");
    const holder = await sql<{ pid: number }>`select pid from pg_locks where locktype = 'advisory' and classid = ${FOLLOWER_LOCK_NAMESPACE} and objid::bigint = ${(objid >>> 0).toString()}::bigint and objsubid = 2 and granted and database = (select oid from pg_database where datname = current_database())`.execute(db);
    await sql`select pg_terminate_backend(${holder.rows[0].pid})`.execute(db);
    await until(() => b.acquire(), (v) => v);
    expect(await epochOf("pgf")).toBe(2);
    await expect(fencedWrite(a, "pgf-a2")).rejects.toBeInstanceOf(LeadLost);
    expect(await marker("pgf-a2")).toBe(false);
    await fencedWrite(b, "pgf-b1");
    expect(await marker("pgf-b1")).toBe(true);
  });

  test("an unreachable server: no lead, one report until a lead is held again, never a throw", async () => {
    const down = new URL(url);
    down.port = "1";
    const reports: string[] = [];
    const l = createLeadership({ db, url: down.toString(), onLost: (e) => reports.push(String(e)) });
    opened.push(l);
    expect(await l.lead("anv").acquire()).toBe(false);
    expect(await l.lead("anv").acquire()).toBe(false);
    expect(reports).toHaveLength(1);
  });
});
