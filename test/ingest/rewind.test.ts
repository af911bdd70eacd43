import { afterEach, describe, expect, it } from "bun:test";
import { canonicalBlocks, canonicalHashAt, canonicalHashes, rewindChain } from "../../src/ingest/canonical-chain.ts";
import { networkTips } from "../../src/ingest/blocks.ts";
import { asRemoved, blk, chain, ingest, listed, pay, type Rig, settled, sorted, startRig } from "./reorg-support.ts";

// The storage side of the follower's walk-back and `follow rewind` (docs/chains.md).

let rig: Rig;
afterEach(async () => {
  await rig.stop();
});

const deliveries = async () => Number((await rig.td.ctx.db.selectFrom("deliveries").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);

describe("canonical hashes by height", () => {
  it("lists the canonical blocks of a range, without orphaned ones or skipped heights", async () => {
    rig = await startRig({ maxReorgDepth: 10 });
    await ingest(rig.td, [...chain("0xa", 1, 4, "0xa0"), blk(7, "0xa7", "0xa6")]);
    expect(await canonicalHashes(rig.td.ctx.db, "eth", 2, 7)).toEqual(
      new Map([
        [2, "0xa2"],
        [3, "0xa3"],
        [4, "0xa4"],
        [7, "0xa7"],
      ]),
    );
    // b4 replaces a4 and orphans everything above it, a7 included.
    await ingest(rig.td, blk(4, "0xb4", "0xa3"));
    const db = rig.td.ctx.db;
    expect(await canonicalHashes(db, "eth", 2, 7)).toEqual(
      new Map([
        [2, "0xa2"],
        [3, "0xa3"],
        [4, "0xb4"],
      ]),
    );
    expect(await canonicalBlocks(db, "eth", 4, 4)).toEqual([{ hash: "0xb4", height: 4, parentHash: "0xa3" }]);
    expect(await canonicalHashes(db, "btc", 0, 100)).toEqual(new Map());
    expect([await canonicalHashAt(db, "eth", 4), await canonicalHashAt(db, "eth", 7)]).toEqual(["0xb4", null]);
  });
});

describe("rewindChain", () => {
  it("drops the tip to the height and re-reads the same blocks with no duplicate event or delivery", async () => {
    rig = await startRig();
    const a = chain("0xa", 1, 5, "0xa0", { 3: [pay("0xt1")], 5: [pay("0xt2")] });
    await ingest(rig.td, a);
    await settled(rig);
    const before = await listed(rig.client);
    const sent = await deliveries();

    expect(await rewindChain(rig.td.ctx.db, "eth", 2)).toEqual({ network: "eth", toHeight: 2, rewound: 3, tip: 2 });
    expect(await networkTips(rig.td.ctx.db, ["eth"])).toEqual(new Map([["eth", 2]]));
    // Set aside, not retracted: the listing is unchanged.
    expect(await listed(rig.client)).toEqual(before);

    expect(await ingest(rig.td, a.slice(2))).toEqual({ status: 202, body: { blocks: 3, events: 0 } });
    expect(await listed(rig.client)).toEqual(before);
    expect(await deliveries()).toBe(sent);
    expect(await networkTips(rig.td.ctx.db, ["eth"])).toEqual(new Map([["eth", 5]]));
    // And again: plain duplicates now.
    expect(await ingest(rig.td, a)).toEqual({ status: 202, body: { blocks: 0, events: 0 } });
  });

  it("orphans the rewound blocks a different chain replaces, past max_reorg_depth, and retracts their events", async () => {
    rig = await startRig({ maxReorgDepth: 1 });
    await ingest(rig.td, chain("0xa", 1, 5, "0xa0", { 3: [pay("0xt1")] }));
    const sent = await settled(rig);
    const old = (await listed(rig.client)).filter((e) => e.block_height as number >= 3).map((e) => JSON.stringify(e));

    // Too deep for max_reorg_depth 1 …
    expect((await ingest(rig.td, chain("0xb", 3, 6, "0xa2"))).status).toBe(409);
    // … until an admin rewinds below the fork.
    await rewindChain(rig.td.ctx.db, "eth", 2);
    expect(await ingest(rig.td, chain("0xb", 3, 6, "0xa2"))).toEqual({ status: 202, body: { blocks: 4, events: 4 } });
    const after = (await settled(rig)).slice(sent.length);
    const fresh = (await listed(rig.client)).filter((e) => (e.block_hash as string).startsWith("0xb")).map((e) => JSON.stringify(e));
    expect(sorted(after)).toEqual(sorted([...old.map(asRemoved), ...fresh]));
    const statuses = await rig.td.ctx.db.selectFrom("blocks").select(["hash", "status"]).where("hash", "like", "0xa%").orderBy("height").execute();
    expect(statuses.map((s) => s.status)).toEqual(["canonical", "canonical", "orphaned", "orphaned", "orphaned"]);
  });

  it("keeps a re-read block that matches, and orphans the rewound ones above where the chain differs", async () => {
    rig = await startRig();
    await ingest(rig.td, chain("0xa", 1, 5, "0xa0"));
    await rewindChain(rig.td.ctx.db, "eth", 1);
    await ingest(rig.td, [...chain("0xa", 2, 3, "0xa1"), ...chain("0xc", 4, 4, "0xa3")]);
    const rows = await rig.td.ctx.db.selectFrom("blocks").select(["hash", "status"]).orderBy("height").orderBy("hash").execute();
    expect(rows.map((r) => `${r.hash}:${r.status}`)).toEqual([
      "0xa1:canonical",
      "0xa2:canonical",
      "0xa3:canonical",
      "0xa4:orphaned",
      "0xc4:canonical",
      "0xa5:orphaned",
    ]);
  });
});
