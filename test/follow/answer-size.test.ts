import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { storedTip } from "../../src/follow/core/chain-store.ts";
import { followStatus } from "../../src/follow/core/follow-status.ts";
import { until } from "../delivery/fixtures.ts";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { startTestDaemon, type TestDaemon } from "../support/harness.ts";

// A follower reading from a node whose block answers are huge: each answer is capped at the
// network's max_response_bytes, and the blocks read ahead are bounded by bytes as well as by count.
// A hop in front of anvil pads eth_getBlockByNumber(h, true) answers with JSON whitespace (valid,
// same block, many more bytes) and counts the block reads in flight.
const MiB = 1024 * 1024;
const HEAD = 24;

let anvil: Anvil;
let hop: Server<undefined>;
let inFlight = 0;
let mostInFlight = 0;
let blockReads = 0;

beforeAll(async () => {
  anvil = await startAnvil();
  await anvil.rpc("anvil_mine", [`0x${HEAD.toString(16)}`]);
  hop = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const padding = Number(new URL(req.url).pathname.split("/")[2] ?? 0);
      const body = await req.text();
      // A block is read in a batch with its receipts.
      const calls = [JSON.parse(body)].flat() as { method?: string; params?: unknown[] }[];
      const blockRead = calls.some((call) => call.method === "eth_getBlockByNumber" && call.params?.[1] === true);
      if (blockRead) {
        blockReads++;
        mostInFlight = Math.max(mostInFlight, ++inFlight);
      }
      try {
        const res = await fetch(anvil.url, { method: "POST", headers: { "Content-Type": "application/json" }, body });
        const text = await res.text();
        return new Response(blockRead ? text + " ".repeat(padding) : text, { headers: { "Content-Type": "application/json" } });
      } finally {
        if (blockRead) inFlight--;
      }
    },
  });
});

afterAll(async () => {
  hop?.stop(true);
  await anvil?.stop();
});

/** A daemon following anvil through the hop, block answers padded by `padding` bytes, capped at 1 MiB. */
function follow(padding: number): Promise<TestDaemon> {
  return startTestDaemon({
    config: {
      networks: {
        anv: { family: "evm", decimals: 18, rpc_urls: [`${hop.url.origin}/pad/${padding}`], follow: true, start_height: 1, poll_interval_ms: 50, max_response_bytes: MiB },
      },
    },
  });
}

describe("a follower reading large blocks", () => {
  test("reads them one at a time when two would pass the byte budget (max_response_bytes), and still catches up", async () => {
    mostInFlight = 0;
    blockReads = 0;
    const td = await follow(600_000);
    try {
      await until(async () => (await storedTip(td.ctx.db, "anv"))?.height ?? 0, (h) => h === HEAD, 20_000);
      expect(blockReads).toBeGreaterThanOrEqual(HEAD);
      // Eight at once without the byte budget (the count-only read-ahead).
      expect(mostInFlight).toBe(1);
    } finally {
      await td.stop();
    }
  });

  test("an answer over max_response_bytes stops the follower with an error naming the limit, shown by follow status", async () => {
    const td = await follow(MiB);
    try {
      const statuses = await until(
        () => followStatus(td.ctx.db, td.config, Date.now()),
        (s) => s[0]?.state === "error",
        20_000,
      );
      expect(statuses).toEqual([
        expect.objectContaining({
          network: "anv",
          state: "error",
          node_height: HEAD,
          stored_tip: null,
          last_error: `${hop.url.origin} answered with more than ${MiB} bytes (networks.anv.max_response_bytes)`,
        }),
      ]);
      // The node is not put into backoff for it: the next poll asks again.
      expect(td.daemon.deps.upstreams.get("anv")?.states()[0]).toMatchObject({ healthy: true, errors: 0 });
    } finally {
      await td.stop();
    }
  });
});
