import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, migrate, openDatabase } from "../../../src/db/database.ts";
import { type Lead, LeadLost, soleLead } from "../../../src/db/leadership.ts";
import { saveFollowerState } from "../../../src/follow/core/follower-state.ts";
import { createLeadTaker, fencedWrite } from "../../../src/follow/core/leading.ts";
import type { Logger } from "../../../src/lib/log.ts";
import { createMetrics } from "../../../src/lib/metrics.ts";
import { testDatabaseUrl } from "../../support/harness.ts";

// The follower's side of leadership: its writes fenced by the lead, each change of lead said once.

let dir: string;
let db: Db;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-leading-"));
  db = openDatabase(testDatabaseUrl(dir));
  const migrated = await migrate(db);
  if (!migrated.ok) throw new Error(migrated.error);
});
afterAll(async () => {
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const row = { network: "eth", upstream: null, nodeHeight: 7, state: "following" as const, lastError: null, blocksPerSecond: 0 };
const rows = async () => (await db.selectFrom("follower_state").select(["network", "node_height"]).execute()).map((r) => [r.network, Number(r.node_height)]);

describe("a fenced write", () => {
  test("writes while the lead is this daemon's, and writes nothing, answering null, once another daemon took it", async () => {
    const lost: Lead = { ...soleLead, fence: async () => Promise.reject(new LeadLost("follower:eth")) };
    expect(await fencedWrite(db, lost, (trx) => saveFollowerState(trx, row, 1))).toBeNull();
    expect(await rows()).toEqual([]);
    expect(await fencedWrite(db, soleLead, async (trx) => (await saveFollowerState(trx, row, 1), "written"))).toBe("written");
    expect(await rows()).toEqual([["eth", 7]]);
  });

  test("lets any other failure through", async () => {
    await expect(fencedWrite(db, soleLead, async () => Promise.reject(new Error("disk full")))).rejects.toThrow("disk full");
  });
});

describe("taking the lead", () => {
  test("says each change once: standing by, taken, lost; the gauge shows the last", async () => {
    const lines: string[] = [];
    const log: Logger = { debug: () => {}, info: (msg) => void lines.push(msg), warn: (msg) => void lines.push(msg), error: (msg) => void lines.push(msg) };
    const metrics = createMetrics();
    const answers = [false, false, true, true, false, true];
    const take = createLeadTaker({ network: "eth", lead: { ...soleLead, acquire: async () => answers.shift() as boolean }, metrics, log });
    const taken: boolean[] = [];
    for (let i = 0; i < 6; i++) taken.push(await take());
    expect(taken).toEqual([false, false, true, true, false, true]);
    expect(lines).toEqual(["follower standing by: another daemon leads", "follower lead taken", "follower lead lost: standing by", "follower lead taken"]);
    expect(metrics.render()).toContain('chainwatch_follower_leader{network="eth"} 1');
  });

  test("says nothing when this daemon leads from its first look", async () => {
    const lines: string[] = [];
    const log: Logger = { debug: () => {}, info: (msg) => void lines.push(msg), warn: () => {}, error: () => {} };
    const take = createLeadTaker({ network: "eth", lead: soleLead, metrics: createMetrics(), log });
    expect([await take(), await take()]).toEqual([true, true]);
    expect(lines).toEqual([]);
  });
});
