import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { storedTip } from "../../src/follow/chain-store.ts";
import { type FollowStatus, followStatus } from "../../src/follow/follow-status.ts";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { startTestDaemon, type TestDaemon } from "../support/harness.ts";
import { type HostileNode, startHostileNode } from "../support/hostile-node.ts";
import { until } from "../support/poll.ts";

// Followers of every family reading from a node whose answers nest too deep: a deep answer is an
// upstream error like any other (failed over, shown in follow status).

const following = { confirmations: 1, follow: true, start_height: 0, poll_interval_ms: 50 };
const evm = (urls: string[]) => ({ family: "evm", decimals: 18, rpc_urls: urls, ...following });
const btc = (urls: string[]) => ({ family: "btc", decimals: 8, rpc_urls: urls, ...following });
const tron = (urls: string[], extra: Record<string, unknown> = {}) => ({ family: "tron", decimals: 6, rpc_urls: urls, ...following, ...extra });

const statusOf = async (d: TestDaemon, network: string): Promise<FollowStatus> =>
  (await followStatus(d.ctx.db, d.config, d.ctx.clock.now())).find((s) => s.network === network) as FollowStatus;

let node: HostileNode;
let td: TestDaemon | null = null;
beforeAll(() => {
  node = startHostileNode();
});
afterEach(async () => {
  await td?.stop();
  td = null;
});
afterAll(() => node?.stop());

describe("an answer nested deeper than 64 levels", () => {
  let anvil: Anvil;
  beforeAll(async () => {
    anvil = await startAnvil();
    await anvil.rpc("anvil_mine", ["0x3"]);
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  test("is an upstream error: the evm follower fails over to the next upstream and follows it", async () => {
    td = await startTestDaemon({ config: { networks: { deep: evm([`${node.url}/100000/deep`, anvil.url]) } } });
    const d = td;
    await until(async () => (await storedTip(d.ctx.db, "deep"))?.height ?? -1, (h) => h === 3);
    expect(d.daemon.deps.upstreams.get("deep")?.states()[0]).toMatchObject({ errors: expect.any(Number), lastError: "answered with JSON nested deeper than 64 levels" });
    expect(d.daemon.deps.upstreams.get("deep")?.states()[0].errors).toBeGreaterThan(0);
  });

  test.each([
    ["evm", evm],
    ["btc", btc],
    ["tron", tron],
  ] as const)("%s: with no other upstream, follow status shows the error and nothing is stored", async (_, family) => {
    td = await startTestDaemon({ config: { networks: { deep: family([`${node.url}/65/deep`]) } } });
    const d = td;
    const s = await until(() => statusOf(d, "deep"), (x) => x.state === "error");
    expect(s.last_error).toContain("no upstream answered: answered with JSON nested deeper than 64 levels");
    expect(await storedTip(d.ctx.db, "deep")).toBeNull();
  });
});
