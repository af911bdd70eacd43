import { afterEach, describe, expect, it } from "bun:test";
import { asRemoved, blk, chain, ingest, type Listed, listed, pay, type Rig, settled, sorted, startRig } from "./reorg-support.ts";

// Reorgs through POST /ingest/blocks with hand-built chains (docs/chains.md): a real daemon, a real
// receiver, exact bodies. eth: 3 confirmations, max_reorg_depth 3.

let rig: Rig;
afterEach(async () => {
  await rig.stop();
});

const counts = async () => {
  const db = rig.td.ctx.db;
  const n = async (t: "blocks" | "events" | "deliveries") => Number((await db.selectFrom(t).select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
  return { blocks: await n("blocks"), events: await n("events"), deliveries: await n("deliveries") };
};
const byBlock = (events: Listed[], hash: string) => events.filter((e) => e.block_hash === hash);

describe("a depth-1 reorg", () => {
  it("re-delivers the orphaned block's events with removed: true and delivers the new block's events", async () => {
    rig = await startRig();
    expect(await ingest(rig.td, chain("0xa", 1, 3, "0xa0", { 3: [pay("0xt1")] }))).toEqual({ status: 202, body: { blocks: 3, events: 4 } });
    const before = await settled(rig);
    expect(before).toHaveLength(4);
    const orphanedBodies = (await listed(rig.client)).filter((e) => e.block_hash === "0xa3").map((e) => JSON.stringify(e));
    expect(orphanedBodies).toHaveLength(2);

    // b3 replaces a3 on the same parent, with a replacing transaction.
    const res = await ingest(rig.td, blk(3, "0xb3", "0xa2", [pay("0xt2", "2000")]));
    expect(res).toEqual({ status: 202, body: { blocks: 1, events: 2 } });
    const after = (await settled(rig)).slice(4);

    const events = await listed(rig.client);
    const fresh = byBlock(events, "0xb3").map((e) => JSON.stringify(e));
    // Exactly: the two a3 events again with removed: true (new deliveries), and b3's two events.
    expect(sorted(after)).toEqual(sorted([...orphanedBodies.map(asRemoved), ...fresh]));
    expect(fresh.map((b) => JSON.parse(b).removed)).toEqual([false, false]);
    // The listing shows the a3 events where they were, now removed.
    expect(byBlock(events, "0xa3").map((e) => JSON.stringify(e))).toEqual(orphanedBodies.map(asRemoved));
    // A retraction is a new delivery: its own id, not the original's.
    const ids = rig.sink.received.map((r) => r.headers["x-webhook-id"]);
    expect(new Set(ids).size).toBe(8);

    const metrics = await (await fetch(`${rig.td.url}/metrics`)).text();
    expect(metrics).toContain('chainwatch_reorgs_total{network="eth"} 1');
  });

  it("keeps the orphaned block stored, marked orphaned, and the tip on the new chain", async () => {
    rig = await startRig();
    await ingest(rig.td, chain("0xa", 1, 3, "0xa0"));
    await ingest(rig.td, blk(3, "0xb3", "0xa2"));
    const rows = await rig.td.ctx.db.selectFrom("blocks").select(["hash", "status"]).where("height", "=", 3).orderBy("hash").execute();
    expect(rows).toEqual([
      { hash: "0xa3", status: "orphaned" },
      { hash: "0xb3", status: "canonical" },
    ]);
  });
});

describe("a depth-3 reorg", () => {
  it("retracts three blocks, and a transaction mined again in the new chain gets a new event", async () => {
    rig = await startRig();
    const old = chain("0xa", 1, 5, "0xa0", { 3: [pay("0xt1")], 4: [pay("0xsame", "5")] });
    await ingest(rig.td, old);
    await settled(rig);
    const before = await listed(rig.client);
    const orphaned = before.filter((e) => ["0xa3", "0xa4", "0xa5"].includes(e.block_hash as string)).map((e) => JSON.stringify(e));
    expect(orphaned).toHaveLength(5); // three block events, two payments

    // The new chain forks after a2: 0xsame moves to b3, 0xt1 is gone, 0xt3 is new.
    const replacing = chain("0xb", 3, 6, "0xa2", { 3: [pay("0xsame", "5")], 5: [pay("0xt3", "7")] });
    expect(await ingest(rig.td, replacing)).toEqual({ status: 202, body: { blocks: 4, events: 6 } });
    const after = (await settled(rig)).slice(7);

    const events = await listed(rig.client);
    const fresh = events.filter((e) => (e.block_hash as string).startsWith("0xb")).map((e) => JSON.stringify(e));
    expect(fresh).toHaveLength(6);
    expect(sorted(after)).toEqual(sorted([...orphaned.map(asRemoved), ...fresh]));
    // 0xsame: once removed (in a4), once live (in b3), two distinct events.
    const same = events.filter((e) => e.tx_hash === "0xsame").map((e) => [e.block_hash, e.removed]);
    expect(same).toEqual([
      ["0xa4", true],
      ["0xb3", false],
    ]);
    expect(events.filter((e) => e.tx_hash === "0xsame")[0].id).not.toBe(events.filter((e) => e.tx_hash === "0xsame")[1].id);
  });

  it("refuses a reorg deeper than max_reorg_depth with 409 and stores nothing of the batch", async () => {
    rig = await startRig();
    await ingest(rig.td, chain("0xa", 1, 5, "0xa0", { 3: [pay("0xt1")] }));
    await settled(rig);
    const before = await counts();
    const res = await ingest(rig.td, chain("0xb", 2, 6, "0xa1", { 2: [pay("0xt9")] }));
    expect(res).toEqual({
      status: 409,
      body: {
        error:
          "Reorg too deep on eth: block 0xb2 at height 2 would replace 4 stored blocks (heights 2..5), more than max_reorg_depth 3. " +
          "Nothing was stored; see `chainwatch follow rewind`.",
      },
    });
    expect(await counts()).toEqual(before);
    expect((await listed(rig.client)).every((e) => e.removed === false)).toBe(true);
    const metrics = await (await fetch(`${rig.td.url}/metrics`)).text();
    expect(metrics).toContain('chainwatch_deep_reorgs_total{network="eth"} 1');
    expect(metrics).not.toContain("chainwatch_reorgs_total{");
  });

  it("takes a reorg of exactly max_reorg_depth", async () => {
    rig = await startRig();
    await ingest(rig.td, chain("0xa", 1, 5, "0xa0"));
    expect((await ingest(rig.td, chain("0xb", 3, 5, "0xa2"))).status).toBe(202);
  });
});

describe("re-sending", () => {
  it("adds nothing when a reorg batch or one of its blocks is sent again", async () => {
    rig = await startRig();
    await ingest(rig.td, chain("0xa", 1, 4, "0xa0", { 3: [pay("0xt1")] }));
    const replacing = chain("0xb", 3, 5, "0xa2", { 4: [pay("0xt2")] });
    await ingest(rig.td, replacing);
    await settled(rig);
    const before = await counts();
    expect(await ingest(rig.td, replacing)).toEqual({ status: 202, body: { blocks: 0, events: 0 } });
    expect(await ingest(rig.td, replacing[1])).toEqual({ status: 202, body: { blocks: 0, events: 0 } });
    expect(await counts()).toEqual(before);
  });

  it("makes a re-sent orphaned block canonical again, with new events, and orphans what replaced it", async () => {
    rig = await startRig();
    const a = chain("0xa", 1, 3, "0xa0", { 3: [pay("0xt1")] });
    await ingest(rig.td, a);
    await ingest(rig.td, blk(3, "0xb3", "0xa2", [pay("0xt2")]));
    await settled(rig);
    const before = await listed(rig.client);
    const b3 = byBlock(before, "0xb3").map((e) => JSON.stringify(e));

    // The chain goes back to a: a3 again, then a4 on top of it.
    expect(await ingest(rig.td, [a[2], blk(4, "0xa4", "0xa3")])).toEqual({ status: 202, body: { blocks: 2, events: 3 } });
    const after = (await settled(rig)).slice(8);
    const events = await listed(rig.client);
    const a3 = byBlock(events, "0xa3");
    // a3's first events stay removed; it gets new events (new ids) that are live.
    expect(a3.map((e) => [e.type, e.removed])).toEqual([
      ["block", true],
      ["payment", true],
      ["block", false],
      ["payment", false],
    ]);
    const revived = a3.slice(2).map((e) => JSON.stringify(e));
    const a4 = byBlock(events, "0xa4").map((e) => JSON.stringify(e));
    expect(sorted(after)).toEqual(sorted([...b3.map(asRemoved), ...revived, ...a4]));
  });

  it("refuses a block whose parent is not the stored block below it, naming both", async () => {
    rig = await startRig();
    await ingest(rig.td, chain("0xa", 1, 3, "0xa0"));
    const before = await counts();
    const res = await ingest(rig.td, [blk(4, "0xa4", "0xa3"), blk(5, "0xc5", "0xc4")]);
    expect(res).toEqual({
      status: 409,
      body: {
        error:
          "Block 0xc5 at height 5 on eth does not connect: its parent_hash 0xc4 is not the stored block 0xa4 at height 4. " +
          "Send the new chain from the common ancestor up, parents first.",
      },
    });
    expect(await counts()).toEqual(before);
  });

  it("refuses a stored hash sent at another height, orphaned or canonical, and stores nothing of the batch", async () => {
    rig = await startRig();
    await ingest(rig.td, chain("0xa", 1, 3, "0xa0"));
    // b3 orphans a3; a3 then comes back claiming height 1 (it was a 500 when its stored height was taken).
    await ingest(rig.td, blk(3, "0xb3", "0xa2"));
    const before = await counts();
    const refusal = (hash: string, stored: number, sent: number) => ({
      status: 409,
      body: { error: `Block ${hash} on eth is stored at height ${stored}, not ${sent}: a block's hash names one height. Nothing was stored.` },
    });
    expect(await ingest(rig.td, [blk(4, "0xb4", "0xb3"), blk(1, "0xa3", "0xa0")])).toEqual(refusal("0xa3", 3, 1));
    // A canonical block at another height was silently taken as a duplicate.
    expect(await ingest(rig.td, blk(7, "0xa2", "0xa6"))).toEqual(refusal("0xa2", 2, 7));
    // Within one batch, the same new block at two heights: the field is named.
    expect(await ingest(rig.td, [blk(4, "0xc4", "0xb3"), blk(5, "0xc4", "0xc4")])).toEqual({
      status: 400,
      body: { error: "[1].height: block 0xc4 is at height 4 earlier in this batch; a block's hash names one height" },
    });
    expect(await counts()).toEqual(before);
  });

  it("sees a block that is not the parent of the stored block above it as a reorg from there", async () => {
    rig = await startRig();
    // A feed that skipped height 2: a3 names 0xa2 as its parent.
    await ingest(rig.td, [blk(1, "0xa1", "0xa0"), blk(3, "0xa3", "0xa2")]);
    expect(await ingest(rig.td, blk(2, "0xb2", "0xa1"))).toEqual({ status: 202, body: { blocks: 1, events: 1 } });
    const rows = await rig.td.ctx.db.selectFrom("blocks").select(["hash", "status"]).orderBy("height").execute();
    expect(rows).toEqual([
      { hash: "0xa1", status: "canonical" },
      { hash: "0xb2", status: "canonical" },
      { hash: "0xa3", status: "orphaned" },
    ]);
  });
});
