import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApiKey } from "../../../src/accounts/api-keys.ts";
import { createAccount } from "../../../src/accounts/accounts.ts";
import { loadConfig } from "../../../src/config/load.ts";
import { type Context, openContext } from "../../../src/daemon.ts";
import { spawnListening, writeToml } from "../../delivery/fixtures.ts";
import { type Credentials, onPostgres, signedHeaders } from "../../support/harness.ts";
import { postgresOnly } from "../../support/postgres-only.ts";
import { accountXpub } from "./vectors.ts";

// Wallet indices are handed out once, ever, by any number of daemons (docs/payments.md): three
// `serve` processes on one PostgreSQL database create 150 orders each at once, six at a time each, for
// one account's wallet, with refused requests mixed in, and the orders hold indices 0..449, each once.

const DAEMONS = 3;
const ORDERS_PER_DAEMON = 150;
const IN_FLIGHT = 6;

type Daemon = { proc: Subprocess; url: string };

describe.skipIf(!onPostgres)(postgresOnly("wallet indices across three daemons on one PostgreSQL database"), () => {
  let dir: string;
  let ctx: Context;
  let creds: Credentials;
  let accountId: string;
  const daemons: Daemon[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-wallet-daemons-"));
    const config = writeToml(dir, ["[rate_limit]", "per_key_rps = 100000", "[billing]", "enabled = false"]);
    const loaded = loadConfig(config);
    if (!loaded.ok) throw new Error(loaded.error);
    ctx = await openContext(loaded.config, { env: {} });
    const made = await createAccount(ctx, { name: "shop" });
    if (!made.ok) throw new Error(made.error);
    accountId = made.account.id;
    const key = await createApiKey(ctx, { accountId, allowIps: [] });
    if (!key.ok) throw new Error(key.error);
    creds = { apiKey: key.key.api_key, secret: key.key.secret };
    for (let i = 0; i < DAEMONS; i++) daemons.push(await spawnListening(config));
  }, 60_000);

  afterAll(async () => {
    for (const d of daemons) {
      d.proc.kill("SIGTERM");
      await d.proc.exited;
    }
    await ctx?.db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  async function send(d: Daemon, method: string, path: string, body: unknown): Promise<{ status: number; body: Record<string, any> }> {
    const text = JSON.stringify(body);
    const res = await fetch(`${d.url}${path}`, { method, body: text, headers: { "Content-Type": "application/json", ...signedHeaders(creds, method, path, text) } });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  test(`${DAEMONS} × ${ORDERS_PER_DAEMON} orders at once take indices 0..${DAEMONS * ORDERS_PER_DAEMON - 1}, each once; the refused requests between them take none`, async () => {
    expect((await send(daemons[0], "PUT", "/v1/payments/wallets/eth", { key: accountXpub("m/44'/60'/0'") })).status).toBe(200);
    const statuses: number[] = [];
    await Promise.all(
      daemons.map(async (d, di) => {
        let next = 0;
        const lane = async () => {
          while (next < ORDERS_PER_DAEMON) {
            const n = next++;
            const made = await send(d, "POST", "/v1/payments", { order_id: `d${di}-${n}`, network: "eth", amount: "1" });
            expect(made.status).toBe(201);
            // Refused after the wallet lookup would have run: a repeated order_id, a bad amount.
            if (n % 10 === 0) statuses.push((await send(d, "POST", "/v1/payments", { order_id: `d${di}-${n}`, network: "eth", amount: "1" })).status);
            if (n % 15 === 0) statuses.push((await send(d, "POST", "/v1/payments", { order_id: `bad-${di}-${n}`, network: "eth", amount: "0" })).status);
          }
        };
        await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
      }),
    );
    expect(statuses.filter((s) => s === 409).length).toBe(DAEMONS * (ORDERS_PER_DAEMON / 10));
    expect(statuses.filter((s) => s === 400).length).toBe(DAEMONS * (ORDERS_PER_DAEMON / 15));
    const rows = await ctx.db.selectFrom("payments").select(["derivation_index", "address"]).where("account_id", "=", accountId).execute();
    const total = DAEMONS * ORDERS_PER_DAEMON;
    expect(rows).toHaveLength(total);
    expect(rows.map((r) => Number(r.derivation_index)).sort((a, b) => a - b)).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(new Set(rows.map((r) => r.address)).size).toBe(total);
    const wallet = await send(daemons[1], "GET", "/v1/payments/wallets", undefined);
    expect(wallet.body.wallets).toEqual([expect.objectContaining({ network: "eth", next_index: total, unused_tail: total })]);
  }, 120_000);
});
