import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Address, getAddress } from "viem";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { startTestDaemon, type TestDaemon, testDatabaseUrl } from "../support/harness.ts";
import { until } from "../support/poll.ts";

// One spelling of a hash: a feed that sends a followed network's blocks with capitals in their hashes
// and checksummed addresses (POST /ingest/blocks) and the follower that reads the same chain from its
// node in lower case store the same blocks and events. The follower then continues from the blocks the
// feed stored (their hashes are its parents) instead of taking them for a reorg, and a block sent in
// capitals after the follower stored it adds nothing.

const ETH = 10n ** 18n;
const W = "0x5e11e5e11e5e11e5e11e5e11e5e11e5e11e5e11e" as Address;
let anvil: Anvil;
let dir: string;
let feed: TestDaemon | undefined;
let follower: TestDaemon | undefined;

beforeAll(async () => {
  anvil = await startAnvil();
  dir = mkdtempSync(join(tmpdir(), "chainwatch-spelling-"));
});
afterAll(async () => {
  await feed?.stop();
  await follower?.stop();
  await anvil.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The daemon over the test's one database, following anvil or not. */
function daemon(follow: boolean): Promise<TestDaemon> {
  return startTestDaemon({
    config: {
      database: { url: testDatabaseUrl(dir) },
      secrets: { master_key_file: join(dir, "master.key") },
      networks: { anv: { family: "evm", decimals: 18, confirmations: 1, rpc_urls: [anvil.url], follow, start_height: 0, poll_interval_ms: 100 } },
    },
  });
}

const shout = (hash: string) => `0x${hash.slice(2).toUpperCase()}`;

/** Block `height` of anvil as a feed that spells hashes in capitals and addresses with their checksum sends it. */
async function feedBlock(height: number) {
  const b = await anvil.public.getBlock({ blockNumber: BigInt(height), includeTransactions: true });
  return {
    network: "anv",
    height,
    hash: shout(b.hash),
    parent_hash: shout(b.parentHash),
    timestamp: Number(b.timestamp),
    transactions: b.transactions.map((tx) => ({ hash: shout(tx.hash), from: getAddress(tx.from), to: tx.to ? getAddress(tx.to) : null, value: tx.value.toString() })),
  };
}

test("blocks fed in capitals and blocks the follower reads are one chain, spelled one way", async () => {
  const fedTxs = [await anvil.sendEth(anvil.accounts[0], W, ETH), await anvil.sendEth(anvil.accounts[1], W, 2n * ETH)];
  const fedHead = await anvil.mined(fedTxs[1]);

  feed = await daemon(false);
  const client = await feed.client();
  expect((await client.request("POST", "/v1/address-watch/addresses", { network_slug: "anv", address: getAddress(W) })).status).toBe(201);
  const batch = await Promise.all(Array.from({ length: fedHead + 1 }, (_, h) => feedBlock(h)));
  const fed = await feed.ingest(batch);
  expect(fed.status).toBe(202);
  expect(await fed.json()).toEqual({ blocks: fedHead + 1, events: 2 + fedHead + 1 });
  await feed.stop();
  feed = undefined;

  // The chain grows while nobody follows it; then the follower takes over from the fed tip.
  const followedTx = await anvil.sendEth(anvil.accounts[2], W, 3n * ETH);
  const head = await anvil.mined(followedTx);
  follower = await daemon(true);
  const db = follower.ctx.db;
  await until(
    () => db.selectFrom("blocks").select("height").where("network", "=", "anv").where("status", "=", "canonical").orderBy("height", "desc").executeTakeFirst(),
    (tip) => tip?.height === head,
  );

  // Every stored block is the node's, in the node's spelling, none orphaned: the fed ones were not taken for a reorg.
  const stored = await db.selectFrom("blocks").select(["height", "hash", "status"]).where("network", "=", "anv").orderBy("height").execute();
  const node = await Promise.all(Array.from({ length: head + 1 }, (_, h) => anvil.public.getBlock({ blockNumber: BigInt(h) })));
  expect(stored.map((b) => [b.height, b.hash, b.status])).toEqual(node.map((b, h) => [h, b.hash, "canonical"]));

  // One payment event per transaction, fed or followed alike: the node's hashes, the address lower-case, none removed.
  const events = await db.selectFrom("events").select("body").where("type", "=", "payment").orderBy("block_height").execute();
  const bodies = events.map((e) => JSON.parse(e.body) as Record<string, unknown>);
  const txs = [...fedTxs, followedTx];
  const blockOf = async (tx: `0x${string}`) => (await anvil.public.getTransactionReceipt({ hash: tx })).blockHash;
  expect(bodies.map((b) => [b.tx_hash, b.block_hash, b.address, b.amount, b.removed])).toEqual([
    [txs[0], await blockOf(txs[0]), W, "1", false],
    [txs[1], await blockOf(txs[1]), W, "2", false],
    [txs[2], await blockOf(txs[2]), W, "3", false],
  ]);
  // The follower saves its state after the pass that stored the blocks: wait for that write.
  const state = await until(
    () => db.selectFrom("follower_state").select(["state", "last_error"]).where("network", "=", "anv").executeTakeFirst(),
    (s) => s?.state === "following",
  );
  expect(state).toEqual({ state: "following", last_error: null });

  // The follower's block sent again in capitals is the block already stored: nothing new, no reorg.
  const again = await follower.ingest(await feedBlock(head));
  expect(again.status).toBe(202);
  expect(await again.json()).toEqual({ blocks: 0, events: 0 });
  expect(await db.selectFrom("blocks").select("hash").where("status", "!=", "canonical").execute()).toEqual([]);
});
