import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import type { Subprocess } from "bun";
import { sql } from "kysely";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApiKey } from "../../src/accounts/api-keys.ts";
import { createAccount } from "../../src/accounts/accounts.ts";
import { setPlan } from "../../src/accounts/plans.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import { spawnListening, until, writeToml } from "../delivery/fixtures.ts";
import { type Anvil, startAnvil } from "../support/anvil.ts";
import { onPostgres } from "../support/harness.ts";
import { call, postRpc } from "../rpc/support.ts";
import { postgresOnly } from "../support/postgres-only.ts";

// docs/rpc.md, docs/operations.md: three `serve` processes on one PostgreSQL database hammer /rpc for one
// account with a small balance. Each sets credits aside in slices of SLICE under a lease in the
// database, so together they never serve more than the balance, and a daemon killed with its
// slice gives it back once its lease runs out (10 flush intervals of 1 s).

const DAEMONS = 3;
const SLICE = 5;
const CALLERS_PER_DAEMON = 4;

type Daemon = { proc: Subprocess; url: string };

describe.skipIf(!onPostgres)(postgresOnly("/rpc credits across three daemons on one PostgreSQL database"), () => {
  let dir: string;
  let config: string;
  let ctx: Context;
  let anvil: Anvil;
  const daemons: Daemon[] = [];

  async function newAccount(credits: number) {
    const plan = `plan${Math.random().toString(36).slice(2, 8)}`;
    const made = await setPlan(ctx.db, ctx.clock, { name: plan, slots: 1, rpcRps: 100_000 });
    if (!made.ok) throw new Error(made.error);
    const acct = await createAccount(ctx, { name: plan, plan, credits });
    if (!acct.ok) throw new Error(acct.error);
    const key = await createApiKey(ctx, { accountId: acct.account.id, allowIps: [] });
    if (!key.ok) throw new Error(key.error);
    return { accountId: acct.account.id, apiKey: key.key.api_key };
  }

  /** One eth_blockNumber (1 credit) through daemon `d`: true when served, false on 402. */
  async function callVia(d: Daemon, apiKey: string): Promise<boolean> {
    const a = await postRpc(`${d.url}/rpc/eth/${apiKey}`, call(1, "eth_blockNumber"));
    if (a.status === 200 && typeof a.body.result === "string") return true;
    if (a.status === 402 && a.body.error?.message === "Insufficient credits.") return false;
    throw new Error(`unexpected ${a.status} ${JSON.stringify(a.body)}`);
  }

  /**
   * Calls through every daemon, CALLERS_PER_DAEMON at a time each, until every caller has been
   * refused `refusals` times in a row; answers the calls served per daemon.
   */
  async function hammer(targets: Daemon[], apiKey: string, refusals = 25): Promise<number[]> {
    const served = targets.map(() => 0);
    const deadline = Date.now() + 20_000;
    await Promise.all(
      targets.flatMap((d, i) =>
        Array.from({ length: CALLERS_PER_DAEMON }, async () => {
          for (let refusedInARow = 0; refusedInARow < refusals; ) {
            if (Date.now() > deadline) throw new Error("the daemons kept serving past the deadline");
            if (await callVia(d, apiKey)) {
              served[i]++;
              refusedInARow = 0;
            } else refusedInARow++;
          }
        }),
      ),
    );
    return served;
  }

  /** The balance, the calls charged and what is set aside, read in one statement (one snapshot). */
  const stored = async (accountId: string) => {
    const { rows } = await sql<{ credits: number; rpc_calls: number; leased: string | null }>`select a.credits,
      (select coalesce(sum(u.rpc_calls), 0) from usage_daily as u where u.account_id = a.id) as rpc_calls,
      (select string_agg(l.credits::text, ',') from credit_leases as l where l.account_id = a.id) as leased
      from accounts as a where a.id = ${accountId}`.execute(ctx.db);
    const r = rows[0];
    return { credits: Number(r.credits), rpcCalls: Number(r.rpc_calls), leased: r.leased === null ? [] : r.leased.split(",").map(Number) };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-credits-"));
    anvil = await startAnvil();
    config = writeToml(dir, ["[rpc]", "flush_interval_seconds = 1", `credit_slice = ${SLICE}`, "[networks.eth]", 'family = "evm"', "decimals = 18", `rpc_urls = ["${anvil.url}"]`]);
    const loaded = loadConfig(config);
    if (!loaded.ok) throw new Error(loaded.error);
    ctx = await openContext(loaded.config, { env: {} });
    for (let i = 0; i < DAEMONS; i++) daemons.push(await spawnListening(config));
  }, 60_000);

  afterAll(async () => {
    for (const d of daemons) {
      if (d.proc.exitCode === null && d.proc.signalCode === null) d.proc.kill("SIGTERM");
      await d.proc.exited;
    }
    await anvil?.stop();
    await ctx?.db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serve exactly the balance between them: every credit spent once, none twice, the balance never below zero", async () => {
    const balance = 200;
    // Every daemon answers a call of another account first: a daemon's first /rpc call (its first
    // key lookup, its first upstream connection) is slow, and on a busy machine the warm ones
    // could spend the whole balance before a cold one answered once.
    const warm = await newAccount(DAEMONS * SLICE);
    for (const d of daemons) expect(await callVia(d, warm.apiKey)).toBe(true);
    const { accountId, apiKey } = await newAccount(balance);
    const served = await hammer(daemons, apiKey);
    const total = served.reduce((a, b) => a + b, 0);
    console.log(`credits: ${total} calls served for ${balance} credits over ${DAEMONS} daemons (${served.join(", ")}), slices of ${SLICE}`);
    expect(total).toBe(balance);
    // Every daemon served some: the slices went round rather than to one daemon.
    for (const n of served) expect(n).toBeGreaterThan(0);
    // Each daemon charges what it served within a flush interval, and holds nothing back.
    const final = await until(() => stored(accountId), (s) => s.rpcCalls === balance && s.leased.length === 0);
    expect(final).toEqual({ credits: 0, rpcCalls: balance, leased: [] });
  }, 60_000);

  it("a daemon killed with its slice set aside gives it back after the lease; the others then spend it", async () => {
    const balance = 3 * SLICE;
    const { accountId, apiKey } = await newAccount(balance);
    const [victim, ...others] = daemons;
    // One call through the victim sets a slice aside there; it is killed before it can give it back.
    expect(await callVia(victim, apiKey)).toBe(true);
    victim.proc.kill("SIGKILL");
    await victim.proc.exited;
    // What it left: the slice, less its call if a flush charged it before the kill (else that call stays unbilled).
    const left = await stored(accountId);
    expect(left.leased).toHaveLength(1);
    const [stranded] = left.leased;
    expect(stranded).toBe(SLICE - left.rpcCalls);
    // The others spend what is free at once, and the stranded credits once the victim's lease has run out.
    const before = await hammer(others, apiKey, 5);
    expect(before.reduce((a, b) => a + b, 0)).toBe(balance - SLICE);
    // Nothing more until the victim's lease runs out: wait for its end instead of calling all along
    // (every call through a daemon is statements on the shared server), then call until served.
    const { rows } = await sql<{ until: string }>`select max(lease_until) as until from credit_leases where account_id = ${accountId}`.execute(ctx.db);
    await Bun.sleep(Math.max(0, Number(rows[0].until) - Date.now()));
    let after = 0;
    for (const deadline = Date.now() + 30_000; after === 0; await Bun.sleep(250)) {
      if (Date.now() > deadline) throw new Error("the killed daemon's credits never came back");
      after = (await hammer(others, apiKey, 5)).reduce((a, b) => a + b, 0);
    }
    expect(after).toBe(stranded);
    // Every credit charged once; the balance ends at zero, not below.
    const final = await until(() => stored(accountId), (s) => s.rpcCalls === balance && s.leased.length === 0);
    expect(final).toEqual({ credits: 0, rpcCalls: balance, leased: [] });
  }, 60_000);
});
