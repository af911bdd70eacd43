import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { Context } from "../../src/daemon.ts";
import { FOLLOWER_LOCK_NAMESPACE, LeadLost } from "../../src/db/leadership.ts";
import { storedTip } from "../../src/follow/core/chain-store.ts";
import { blocksOfFeed } from "../support/feed-block.ts";
import { until, writeToml } from "../delivery/fixtures.ts";
import { leadTakenOver } from "../support/lead-take-over.ts";
import { onPostgres, startTestDaemon, type TestDaemon, testDatabaseUrl } from "../support/harness.ts";
import { postgresOnly } from "../support/postgres-only.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { chainOf, type FakeNode, type FakeTx, hashOf, startFakeNode } from "./fake-node.ts";
import { followedNetworkToml, openWithWatcher, type ServeProcess, spawnLoggedServe } from "./support.ts";

// Fencing of the follower's lead (docs/operations.md): every take-over takes the next epoch, and a
// follower's batch is written only while its epoch is still the lead's, checked by the database in
// the batch's own transaction. A leader paused past the take-over (a stopped VM, a long GC) has its
// late batch refused, whatever the timing.

describe("a follower's batch is fenced by its lead's epoch", () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon({ config: { networks: { gen: { family: "generic", decimals: 0 } } } });
  });
  afterAll(async () => d?.stop());

  const block = (height: number, tag = "a") => ({
    network: "gen",
    height,
    hash: hashOf(tag, height),
    parent_hash: height > 0 ? hashOf(tag, height - 1) : `0x${"0".repeat(64)}`,
    timestamp: 1_763_750_000 + height,
    transactions: [],
  });
  const stored = async () => (await d.ctx.db.selectFrom("blocks").select("hash").where("network", "=", "gen").execute()).map((r) => r.hash);

  test("the old lead's batch is refused and stores nothing; the lead that took over after it writes", async () => {
    const { old, now, close } = await leadTakenOver(d.ctx.db, d.config.database.url, "gen");
    const row = await d.ctx.db.selectFrom("lead_epochs").select("epoch").where("name", "=", "follower:gen").executeTakeFirstOrThrow();
    expect(Number(row.epoch)).toBe(2);

    await expect(d.daemon.deps.ingest.ingestBlocks(blocksOfFeed([block(0)], d.config.networks), { fence: old.fence })).rejects.toBeInstanceOf(LeadLost);
    expect(await stored()).toEqual([]);
    expect(old.held()).toBe(false);
    expect(await d.daemon.deps.ingest.ingestBlocks(blocksOfFeed([block(0)], d.config.networks), { fence: now.fence })).toMatchObject({ ok: true, blocks: 1 });
    expect(await stored()).toEqual([hashOf("a", 0)]);
    await close();
  });
});

const POLL_MS = 100;
const W = "0x00000000000000000000000000000000000fe11c";
const SENDER = "0x00000000000000000000000000000000000000a1";

describe.skipIf(!onPostgres)(postgresOnly("fencing across two daemons on PostgreSQL"), () => {
  let node: FakeNode;
  let dir: string;
  let config: string;
  let ctx: Context;
  let sink: WebhookSink;
  let admin: pg.Client;
  const daemons: ServeProcess[] = [];

  beforeAll(async () => {
    node = startFakeNode({ chainId: 31337, blocks: chainOf("a", 0, 10) });
    sink = startWebhookSink();
    dir = mkdtempSync(join(tmpdir(), "chainwatch-fencing-"));
    config = writeToml(dir, ["[billing]", "enabled = false", "[delivery]", "allow_private_targets = true", ...followedNetworkToml(node.url, { pollMs: POLL_MS })]);
    ({ ctx } = await openWithWatcher(config, { name: "fenced", address: W, webhookUrl: sink.url }));
    admin = new pg.Client({ connectionString: testDatabaseUrl(dir) });
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.end().catch(() => {});
    for (const p of daemons) {
      if (p.proc.exitCode !== null || p.proc.signalCode !== null) continue;
      p.proc.kill("SIGCONT");
      p.proc.kill("SIGTERM");
      await p.proc.exited;
    }
    await sink?.stop();
    await ctx?.db.destroy();
    node?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const leadGauge = async (d: ServeProcess): Promise<number | null> => {
    const m = /chainwatch_follower_leader\{network="anv"\} (\d+)/.exec(await (await fetch(`${d.url}/metrics`)).text());
    return m ? Number(m[1]) : null;
  };
  const tip = async () => (await storedTip(ctx.db, "anv")) ?? { height: -1, hash: "" };
  /** Backends of this test's database waiting for a lock on `watches` (what every ingest reads first). */
  const waitingOnWatches = async () =>
    Number((await admin.query("select count(*) as n from pg_locks where relation = 'watches'::regclass and not granted and database = (select oid from pg_database where datname = current_database())")).rows[0].n);

  test(
    "SIGSTOP the leader inside its commit, past the take-over; the new leader advances; after SIGCONT none of the old one's writes land",
    async () => {
      for (let i = 0; i < 2; i++) daemons.push(await spawnLoggedServe(config));
      const first = await until(() => Promise.all(daemons.map(leadGauge)), (g) => g.every((v) => v !== null), 15_000);
      expect(first.filter((v) => v === 1)).toHaveLength(1);
      const old = daemons[first.indexOf(1)];
      const successor = daemons.find((p) => p !== old) as ServeProcess;
      await until(tip, (t) => t.height === 10, 15_000);

      // The same payment T is mined on two forks above block 10: chain b (the old leader reads it)
      // and chain c (the node's chain once the old leader is paused).
      const t: FakeTx = { hash: hashOf("e", 1), from: SENDER, to: W, value: "0xde0b6b3a7640000" };
      // Readers of `watches` wait behind this lock: the old leader is held past its last lead check,
      // inside its commit, where a pause is what fencing is for.
      await admin.query("begin");
      await admin.query("lock table watches in access exclusive mode");
      for (const b of chainOf("b", 11, 13, hashOf("a", 10), { 12: [t] })) node.blocks.set(Number(b.number), b);
      await until(waitingOnWatches, (n) => n === 1, 15_000);
      old.proc.kill("SIGSTOP");

      // While it is stopped: the node switches to chain c, and PostgreSQL frees the old leader's
      // lock (as it does once keepalives give up on a paused machine; here its session is ended).
      for (const b of chainOf("c", 11, 14, hashOf("a", 10), { 13: [t] })) node.blocks.set(Number(b.number), b);
      const holder = await admin.query(
        "select pid from pg_locks where locktype = 'advisory' and classid = $1 and objsubid = 2 and granted and database = (select oid from pg_database where datname = current_database())",
        [FOLLOWER_LOCK_NAMESPACE],
      );
      expect(holder.rows).toHaveLength(1);
      await admin.query("select pg_terminate_backend($1)", [holder.rows[0].pid]);
      await until(() => leadGauge(successor), (g) => g === 1, 15_000);
      const epoch = await admin.query("select epoch from lead_epochs where name = 'follower:anv'");
      expect(Number(epoch.rows[0].epoch)).toBe(2);

      // The new leader reads chain c and commits it once the lock is gone: it advances to 14.
      await until(waitingOnWatches, (n) => n === 2, 15_000);
      await admin.query("commit");
      await until(tip, (x) => x.height === 14 && x.hash === hashOf("c", 14), 15_000);

      // The old leader wakes with chain b's batch in hand, past its last lead check.
      old.proc.kill("SIGCONT");
      await until(async () => old.lines.some((l) => l.msg === "follower lead lost: standing by"), (v) => v, 15_000);
      await until(tip, (x) => x.height === 14 && x.hash === hashOf("c", 14), 15_000);

      // Nothing of chain b was ever stored; T is one event, never removed, delivered once.
      const blocks = await ctx.db.selectFrom("blocks").select(["hash", "status"]).where("network", "=", "anv").where("height", ">", 10).orderBy("height").execute();
      expect(blocks).toEqual([11, 12, 13, 14].map((h) => ({ hash: hashOf("c", h), status: "canonical" })));
      const events = await ctx.db.selectFrom("events").select("body").where("network", "=", "anv").execute();
      const bodies = events.map((e) => JSON.parse(e.body) as { type: string; tx_hash?: string; removed?: boolean });
      expect(bodies.filter((b) => b.tx_hash === t.hash).map((b) => [b.type, b.removed])).toEqual([["payment", false]]);
      expect(bodies.some((b) => b.removed)).toBe(false);
      await until(
        async () => (await ctx.db.selectFrom("deliveries").select("id").where("status", "!=", "succeeded").execute()).length,
        (n) => n === 0,
        15_000,
      );
      const payments = sink.received.map((r) => JSON.parse(r.body) as { type?: string; tx_hash?: string }).filter((b) => b.tx_hash === t.hash);
      expect(payments).toHaveLength(1);
      // The follower's row stays the new leader's: the old one's state writes are fenced too.
      const row = await ctx.db.selectFrom("follower_state").select("leader").where("network", "=", "anv").executeTakeFirstOrThrow();
      expect(row.leader).toContain(`pid ${successor.proc.pid}`);
      expect(old.lines.filter((l) => l.msg === "follower batch refused: another daemon took the lead")).toMatchObject([{ network: "anv", from_height: 11, to_height: 13 }]);
    },
    { timeout: 120_000 },
  );
});
