import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { networkTips } from "../../src/ingest/blocks.ts";
import { heightJumpError } from "../../src/ingest/height-jump.ts";
import { startTestDaemon, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { bodies, createOrder, freshAddress, freshTxHash, readOrder, setPaymentWebhook } from "../payments/support.ts";

const MAX_SAFE = 9007199254740991;
const block = (network: string, height: number, transactions: unknown[] = []) => ({
  network,
  height,
  hash: `0x${network}${height.toString(16)}`,
  transactions,
});

describe("heightJumpError", () => {
  const at = (network: string, height: number, field = "") => ({ network, height, field });
  test.each([
    ["a block within the jump of the tip", [at("eth", 10_100)], new Map([["eth", 100]]), null],
    ["a block exactly max_jump above the tip", [at("eth", 10_100)], new Map([["eth", 100]]), null],
    ["a block below the tip (an old or reorged height)", [at("eth", 5)], new Map([["eth", 100]]), null],
    ["a network's first block, at any height", [at("eth", MAX_SAFE)], new Map(), null],
    ["a batch climbing within the jump at each step", [at("eth", 10_100), at("eth", 20_100), at("eth", 30_100)], new Map([["eth", 100]]), null],
    [
      "a block one above the jump",
      [at("eth", 10_101)],
      new Map([["eth", 100]]),
      "height must be at most 10000 above the tip of network eth (100)",
    ],
    [
      "the pinning block after a first block in the same batch",
      [at("eth", 7, "[0]."), at("eth", MAX_SAFE, "[1].")],
      new Map(),
      "[1].height must be at most 10000 above the tip of network eth (7)",
    ],
    ["each network against its own tip", [at("btc", 900), at("eth", 20_000, "[1].")], new Map([["eth", 100], ["btc", 10]]), "[1].height must be at most 10000 above the tip of network eth (100)"],
  ])("%s", (_name, blocks, tips, expected) => {
    expect(heightJumpError(blocks, tips as Map<string, number>, 10_000)).toBe(expected as string | null);
  });
});

describe("POST /ingest/blocks refuses heights that would pin the tip", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    td = await startTestDaemon({ config: { networks: { jumpy: { family: "generic", decimals: 0 }, tiny: { family: "generic", decimals: 0 } }, ingest: { max_height_jump: 5 } } });
  });
  afterAll(async () => {
    await td.stop();
  });

  const refused = async (batch: unknown, error: string) => {
    const before = await networkTips(td.ctx.db, ["jumpy"]);
    const res = await td.ingest(batch);
    expect([res.status, await res.json()]).toEqual([400, { error }]);
    expect(await networkTips(td.ctx.db, ["jumpy"])).toEqual(before);
  };

  test.each([
    ["a negative height", -1, "height must be at least 0"],
    ["a fractional height", 1.5, "height must be an integer"],
    ["a height above 2^53 − 1", 9007199254740992, "height must be at most 9007199254740991"],
    ["a height far above 2^53", 1e300, "height must be at most 9007199254740991"],
    ["a height given as a string", "10", "height must be an integer"],
  ])("%s: 400 naming height", async (_name, height, error) => {
    await refused(JSON.stringify({ ...block("jumpy", 0), height }), error);
  });

  test("takes a network's first block at any height, then refuses a jump past max_height_jump, storing nothing", async () => {
    expect((await td.ingest(block("jumpy", 1_000))).status).toBe(202);
    await refused(block("jumpy", 1_006), "height must be at most 5 above the tip of network jumpy (1000)");
    await refused([block("jumpy", 1_001), block("jumpy", MAX_SAFE)], "[1].height must be at most 5 above the tip of network jumpy (1001)");
    // The refused batch's first block was not stored either.
    expect(await networkTips(td.ctx.db, ["jumpy"])).toEqual(new Map([["jumpy", 1_000]]));
    expect((await td.ingest([block("jumpy", 1_005), block("jumpy", 1_010)])).status).toBe(202);
    expect(await networkTips(td.ctx.db, ["jumpy"])).toEqual(new Map([["jumpy", 1_010]]));
  });

  test("a first block at 2^53 − 1 is taken: the rule starts from the first stored block", async () => {
    expect((await td.ingest(block("tiny", MAX_SAFE))).status).toBe(202);
    expect(await networkTips(td.ctx.db, ["tiny"])).toEqual(new Map([["tiny", MAX_SAFE]]));
  });
});

describe("a payment order cannot be confirmed by a pinning block", () => {
  let td: TestDaemon;
  let sink: WebhookSink;
  beforeAll(async () => {
    sink = startWebhookSink();
    td = await startTestDaemon({ config: { networks: { eth: { family: "evm", decimals: 18, confirmations: 12 } } } });
  });
  afterAll(async () => {
    await td.stop();
    await sink.stop();
  });

  test("the order stays seen after a block at 2^53 − 1 is refused, and confirms only with real blocks", async () => {
    const c = await td.client({ credits: 1_000_000 });
    await setPaymentWebhook(c, sink.url);
    const address = freshAddress();
    const order = await createOrder(c, { order_id: "inv-pin", network: "eth", address, amount: "1" });
    const payment = { hash: freshTxHash(), from: freshAddress("5"), to: address, value: "1000000000000000000" };
    expect((await td.ingest(block("eth", 19_000_000, [payment]))).status).toBe(202);
    const pin = await td.ingest(block("eth", MAX_SAFE));
    expect([pin.status, await pin.json()]).toEqual([400, { error: "height must be at most 10000 above the tip of network eth (19000000)" }]);
    // One more block, so the observer runs again over the tip as stored: 2 of 12 confirmations.
    expect((await td.ingest(block("eth", 19_000_001))).status).toBe(202);
    expect((await readOrder(c, order.payment_id)).status).toBe("seen");
    expect(bodies(await sink.waitFor(1)).map((b) => b.event)).toEqual(["seen"]);
    // Ten more real blocks reach 12 confirmations: now, and only now, the order moves on.
    for (let h = 19_000_002; h <= 19_000_011; h++) expect((await td.ingest(block("eth", h))).status).toBe(202);
    expect((await readOrder(c, order.payment_id)).status).not.toBe("seen");
  });
});
