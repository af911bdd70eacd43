import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApiKey } from "../../src/accounts/api-keys.ts";
import { addCredits, createAccount } from "../../src/accounts/accounts.ts";
import { setPlan } from "../../src/accounts/plans.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import { runCli, spawnListening, writeToml } from "../delivery/fixtures.ts";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { type Credentials, onPostgres, signedHeaders } from "../support/harness.ts";
import { call, postRpc } from "../rpc/support.ts";
import { postgresOnly } from "../support/postgres-only.ts";

// docs/operations.md: the per-key API limit and the per-plan RPC limit hold across three `serve`
// processes on one PostgreSQL database (within 10 %), and what the CLI writes reaches every
// daemon within a second. Real subprocesses with real clocks: the load runs for whole clock
// seconds and the admitted count is compared with the limit times those seconds.

const DAEMONS = 3;
const PER_KEY_RPS = 20;
const RPC_RPS = 30;
const SECONDS = 3;
/** Each daemon's sender waits this long between its requests: 3 daemons × 200 a second, 10–30 times the limits, without holding both cores for the whole run. */
const SPACING_MS = 5;

type Daemon = Awaited<ReturnType<typeof spawnListening>>;

/**
 * Sends `send(daemon)` to every daemon side by side, one request at a time per daemon and
 * `SPACING_MS` apart, from the start of a clock second for `SECONDS` whole seconds; counts the
 * answers `admitted` says passed.
 * At most one request per daemon is in flight when the last second ends, so the count may exceed
 * `SECONDS × limit` by that many (their decisions fall in the next second) and no more.
 */
async function loadForWholeSeconds(daemons: Daemon[], send: (d: Daemon) => Promise<boolean>) {
  while (Date.now() % 1000 > 50) await Bun.sleep(Math.max(1, 1000 - (Date.now() % 1000)));
  const start = Date.now() - (Date.now() % 1000);
  const end = start + SECONDS * 1000;
  const perSecond = Array(SECONDS + 1).fill(0);
  let admitted = 0;
  let sent = 0;
  await Promise.all(
    daemons.map(async (d) => {
      while (Date.now() < end) {
        sent++;
        if (await send(d)) {
          admitted++;
          perSecond[Math.min(SECONDS, Math.floor((Date.now() - start) / 1000))]++;
        }
        await Bun.sleep(SPACING_MS);
      }
    }),
  );
  return { admitted, sent, perSecond };
}

describe.skipIf(!onPostgres)(postgresOnly("rate limits and CLI writes across three daemons on one PostgreSQL database"), () => {
  let dir: string;
  let config: string;
  let ctx: Context;
  let anvil: Anvil;
  const daemons: Daemon[] = [];

  async function newClient(opts: { rpcRps?: number; credits?: number } = {}): Promise<Credentials & { accountId: string }> {
    const plan = `plan${Math.random().toString(36).slice(2, 8)}`;
    const made = await setPlan(ctx.db, ctx.clock, { name: plan, slots: 10, rpcRps: opts.rpcRps ?? RPC_RPS });
    if (!made.ok) throw new Error(made.error);
    const acct = await createAccount(ctx, { name: plan, plan, credits: 0 });
    if (!acct.ok) throw new Error(acct.error);
    if (opts.credits) await addCredits(ctx.db, ctx.clock, acct.account.id, opts.credits);
    return { ...(await newKey(acct.account.id)), accountId: acct.account.id };
  }

  async function newKey(accountId: string): Promise<Credentials> {
    const key = await createApiKey(ctx, { accountId, allowIps: [] });
    if (!key.ok) throw new Error(key.error);
    return { apiKey: key.key.api_key, secret: key.key.secret };
  }

  const getAccount = (d: Daemon, c: Credentials) => fetch(`${d.url}/v1/account`, { headers: signedHeaders(c, "GET", "/v1/account") });
  const blockNumber = (d: Daemon, apiKey: string) => postRpc(`${d.url}/rpc/eth/${apiKey}`, call(1, "eth_blockNumber"));

  /**
   * Polls each daemon every 100 ms until `seen(daemon)`, from before the CLI runs (so every
   * daemon's cache is kept fresh, the worst case for what follows) until after; answers how long
   * after the CLI exited (its write committed before) each daemon first saw the change.
   */
  async function msUntilSeen(cli: () => Promise<void>, seen: (d: Daemon, i: number) => Promise<boolean>): Promise<number[]> {
    const seenAt = Promise.all(
      daemons.map(async (d, i) => {
        for (let attempt = 0; attempt < 200; attempt++) {
          if (await seen(d, i)) return Date.now();
          await Bun.sleep(100);
        }
        throw new Error(`daemon ${i} never saw the change`);
      }),
    );
    await cli();
    const exitedAt = Date.now();
    return (await seenAt).map((t) => Math.max(0, t - exitedAt));
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-limits-"));
    anvil = await startAnvil();
    config = writeToml(dir, [
      "[rate_limit]",
      `per_key_rps = ${PER_KEY_RPS}`,
      "[networks.eth]",
      'family = "evm"',
      "decimals = 18",
      `rpc_urls = ["${anvil.url}"]`,
    ]);
    const loaded = loadConfig(config);
    if (!loaded.ok) throw new Error(loaded.error);
    ctx = await openContext(loaded.config, { env: {} });
    for (let i = 0; i < DAEMONS; i++) daemons.push(await spawnListening(config));
  }, 60_000);

  afterAll(async () => {
    for (const d of daemons) {
      d.proc.kill("SIGTERM");
      await d.proc.exited;
    }
    await anvil?.stop();
    await ctx?.db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`the signed API admits per_key_rps (${PER_KEY_RPS}) a second within 10 %, not ${DAEMONS} times it`, async () => {
    const c = await newClient();
    const run = await loadForWholeSeconds(daemons, async (d) => {
      const res = await getAccount(d, c);
      await res.arrayBuffer();
      if (res.status !== 200 && res.status !== 429) throw new Error(`unexpected ${res.status}`);
      return res.status === 200;
    });
    console.log(`limits: API ${run.admitted} admitted of ${run.sent} in ${SECONDS} s over ${DAEMONS} daemons (limit ${PER_KEY_RPS}/s; by second ${run.perSecond.join(", ")})`);
    expect(run.sent).toBeGreaterThan(SECONDS * PER_KEY_RPS * 2);
    expect(run.admitted).toBeGreaterThanOrEqual(Math.ceil(SECONDS * PER_KEY_RPS * 0.9));
    expect(run.admitted).toBeLessThanOrEqual(Math.min(SECONDS * PER_KEY_RPS * 1.1, SECONDS * PER_KEY_RPS + DAEMONS));
  }, 30_000);

  it(`/rpc admits the plan's rpc_rps (${RPC_RPS}) a second within 10 %, not ${DAEMONS} times it`, async () => {
    const c = await newClient({ credits: 1_000_000 });
    const run = await loadForWholeSeconds(daemons, async (d) => {
      const a = await blockNumber(d, c.apiKey);
      if (a.status === 200 && typeof a.body.result === "string") return true;
      if (a.status === 429 && a.body.error?.code === -32005) return false;
      throw new Error(`unexpected ${a.status} ${JSON.stringify(a.body)}`);
    });
    console.log(`limits: RPC ${run.admitted} admitted of ${run.sent} in ${SECONDS} s over ${DAEMONS} daemons (limit ${RPC_RPS}/s; by second ${run.perSecond.join(", ")})`);
    expect(run.sent).toBeGreaterThan(SECONDS * RPC_RPS * 2);
    expect(run.admitted).toBeGreaterThanOrEqual(Math.ceil(SECONDS * RPC_RPS * 0.9));
    expect(run.admitted).toBeLessThanOrEqual(Math.min(SECONDS * RPC_RPS * 1.1, SECONDS * RPC_RPS + DAEMONS));
  }, 30_000);

  it("a key revoked with the CLI is refused by every daemon within a second", async () => {
    const c = await newClient();
    // Every daemon has the key cached as valid before the revocation.
    for (const d of daemons) expect((await getAccount(d, c)).status).toBe(200);
    const ms = await msUntilSeen(
      async () => expect((await runCli(["keys", "revoke", c.apiKey, "--config", config])).code).toBe(0),
      async (d) => (await getAccount(d, c)).status === 401,
    );
    console.log(`limits: revocation seen after ${ms.join(", ")} ms`);
    // The key cache lives 1000 ms; one 100 ms poll and a request on top.
    for (const m of ms) expect(m).toBeLessThan(1500);
  }, 30_000);

  it("credits added with the CLI reach every daemon's /v1/account and /rpc within a second", async () => {
    const c = await newClient({ rpcRps: 1000 });
    // One key per daemon, so the polling stays under per_key_rps.
    const keys = [c, await newKey(c.accountId), await newKey(c.accountId)];
    for (const [i, d] of daemons.entries()) {
      const res = await getAccount(d, keys[i]);
      expect(((await res.json()) as { credits: { balance: number } }).credits.balance).toBe(0);
      expect((await blockNumber(d, keys[i].apiKey)).status).toBe(402);
    }
    // Both polls run from before the CLI, so each daemon's views are fresh when the write lands.
    let topUp: Promise<void> | null = null;
    const cli = () => (topUp ??= runCli(["accounts", "credit", c.accountId, "--add", "5000", "--config", config]).then((r) => expect(r.code).toBe(0)));
    const [api, rpc] = await Promise.all([
      msUntilSeen(cli, async (d, i) => {
        const res = await getAccount(d, keys[i]);
        // The /rpc poll beside this one spends a credit per call once it passes: the top-up shows as
        // 5000 less those few calls.
        const balance = ((await res.json()) as { credits: { balance: number } }).credits.balance;
        return balance > 4900 && balance <= 5000;
      }),
      msUntilSeen(cli, async (d, i) => (await blockNumber(d, keys[i].apiKey)).status === 200),
    ]);
    console.log(`limits: credits seen by /v1/account after ${api.join(", ")} ms, by /rpc after ${rpc.join(", ")} ms`);
    // Both views live 1000 ms; /rpc refreshes in the background, so one more poll.
    for (const m of [...api, ...rpc]) expect(m).toBeLessThan(1500);
  }, 30_000);
});
