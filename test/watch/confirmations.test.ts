import { afterEach, describe, expect, it } from "bun:test";
import { holdUntilHeight } from "../../src/watch/confirmations.ts";
import { blk, chain, ingest, listed, pay, type Rig, settled, startRig } from "../ingest/reorg-support.ts";

// min_confirmations in the webhook filter (docs/chains.md): deliveries held until the event's block
// has N confirmations on the canonical chain (tip − height + 1 >= N).

describe("holdUntilHeight", () => {
  it.each([
    [0, 10, 10, null],
    [1, 10, 10, null],
    [3, 10, 10, 12],
    [3, 10, 11, 12],
    [3, 10, 12, null],
    [3, 10, 50, null],
    [1000, 1, 1, 1000],
  ])("min %d, block %d, tip %d → %p", (n, height, tip, expected) => {
    expect(holdUntilHeight(n, height, tip)).toBe(expected);
  });
});

describe("min_confirmations: 3 through a real receiver", () => {
  let rig: Rig;
  afterEach(async () => {
    await rig.stop();
  });

  const statuses = async () =>
    (await rig.td.ctx.db.selectFrom("deliveries").select(["event_type", "status", "hold_until_height"]).orderBy("created_at").orderBy("id").execute()).map(
      (d) => [d.event_type, d.status, d.hold_until_height],
    );

  it("holds a payment's delivery until the third block and then delivers it", async () => {
    rig = await startRig({ minConfirmations: 3 });
    await ingest(rig.td, blk(1, "0xa1", "0xa0", [pay("0xt1")]));
    await ingest(rig.td, blk(2, "0xa2", "0xa1"));
    // Stored and listed at once, but held: 2 confirmations so far.
    expect((await listed(rig.client)).map((e) => e.type)).toEqual(["block", "payment", "block"]);
    expect(await statuses()).toEqual([
      ["block", "held", 3],
      ["payment", "held", 3],
      ["block", "held", 4],
    ]);
    expect(await settled(rig)).toEqual([]);

    await ingest(rig.td, blk(3, "0xa3", "0xa2"));
    const events = await listed(rig.client);
    const received = await settled(rig);
    expect(received.sort()).toEqual([JSON.stringify(events[0]), JSON.stringify(events[1])].sort());
    expect(await statuses()).toEqual([
      ["block", "succeeded", 3],
      ["payment", "succeeded", 3],
      ["block", "held", 4],
      ["block", "held", 5],
    ]);
  });

  it("delivers at once a block that arrives already deep enough", async () => {
    rig = await startRig({ minConfirmations: 3 });
    // Heights 1 and 5 in one batch: block 1 has 5 confirmations when the batch commits.
    await ingest(rig.td, [blk(1, "0xa1", "0xa0", [pay("0xt1")]), blk(5, "0xa5", "0xa4")]);
    expect((await settled(rig)).map((b) => JSON.parse(b).block_hash)).toEqual(["0xa1", "0xa1"]);
  });

  it("never sends a held delivery whose block is orphaned, nor its removal, and sends the new chain's once confirmed", async () => {
    rig = await startRig({ minConfirmations: 3 });
    await ingest(rig.td, chain("0xa", 1, 2, "0xa0", { 2: [pay("0xt1")] }));
    const orphanedIds = (await listed(rig.client)).filter((e) => e.block_hash === "0xa2").map((e) => e.id);
    // b2 replaces a2 before it had 3 confirmations; b3, b4 confirm b2.
    await ingest(rig.td, chain("0xb", 2, 4, "0xa1", { 2: [pay("0xt2")] }));
    const received = (await settled(rig)).map((b) => JSON.parse(b));
    expect(received.map((b) => [b.type, b.block_hash, b.removed]).sort()).toEqual(
      [
        ["block", "0xa1", false],
        ["block", "0xb2", false],
        ["payment", "0xb2", false],
      ].sort(),
    );
    // The a2 events are listed as removed, and no delivery of them exists at all.
    const db = rig.td.ctx.db;
    expect((await db.selectFrom("deliveries").select("id").where("event_id", "in", orphanedIds).execute()).length).toBe(0);
    expect((await listed(rig.client)).filter((e) => orphanedIds.includes(e.id)).map((e) => e.removed)).toEqual([true, true]);
  });

  it("retracts a released delivery whose block a deeper reorg orphans", async () => {
    rig = await startRig({ minConfirmations: 2 });
    await ingest(rig.td, chain("0xa", 1, 3, "0xa0", { 2: [pay("0xt1")] }));
    const sent = await settled(rig);
    expect(sent.map((b) => JSON.parse(b).block_hash)).toEqual(expect.arrayContaining(["0xa1", "0xa2"]));
    const payment = sent.find((b) => JSON.parse(b).type === "payment") as string;
    await ingest(rig.td, chain("0xb", 2, 3, "0xa1"));
    const after = (await settled(rig)).slice(sent.length);
    // The a2 events went out, so their removal does; a3's was held and just disappears; b2 is confirmed by b3.
    expect(after.filter((b) => JSON.parse(b).type === "payment")).toEqual([JSON.stringify({ ...JSON.parse(payment), removed: true })]);
    expect(after.map((b) => [JSON.parse(b).type, JSON.parse(b).block_hash, JSON.parse(b).removed]).sort()).toEqual(
      [
        ["block", "0xa2", true],
        ["payment", "0xa2", true],
        ["block", "0xb2", false],
      ].sort(),
    );
  });
});
