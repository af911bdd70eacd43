#!/usr/bin/env bun
// `bun run bench:watch-batch`: what watching addresses in bulk costs the daemon.
//
// A `chainwatch serve` subprocess over SQLite takes BENCH_ADDRESSES (default 100,000) new
// addresses by POST /v1/address-watch/addresses/batch, 1,000 a call, one call at a time, into one
// account whose plan has room for all of them. Prints the wall time and the daemon's CPU µs per
// address (from /proc), and, for scale, the same figures for BENCH_SINGLE (default 2,000) addresses
// added one call each by the single route, into the same (by then large) account.
// Knobs (env): BENCH_ADDRESSES, BENCH_SINGLE.
import type { Subprocess } from "bun";
import { createHash, createHmac } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../src/accounts/accounts.ts";
import { createApiKey } from "../src/accounts/api-keys.ts";
import { setPlan } from "../src/accounts/plans.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import { cpuOf, cpuPerUnit, loadAverage, startCpuWindow } from "./support/cpu.ts";
import { spawnDaemons, stopAll, writeDaemonConfig } from "./support/daemons.ts";

const ADDRESSES = Number(process.env.BENCH_ADDRESSES ?? 100_000);
const SINGLE = Number(process.env.BENCH_SINGLE ?? 2000);
const BATCH = 1000;

type Creds = { apiKey: string; secret: string };

function signed(creds: Creds, method: string, path: string, body: string) {
  const ts = String(Math.floor(Date.now() / 1000));
  const hash = createHash("sha256").update(body).digest("hex");
  const signature = createHmac("sha256", creds.secret).update(`${ts}\n${method}\n${path}\n${hash}`).digest("hex");
  return { "Content-Type": "application/json", "X-Api-Key": creds.apiKey, "X-Timestamp": ts, "X-Signature": signature };
}

async function post(url: string, creds: Creds, path: string, body: unknown, status: number): Promise<unknown> {
  const text = JSON.stringify(body);
  const res = await fetch(`${url}${path}`, { method: "POST", body: text, headers: signed(creds, "POST", path, text) });
  if (res.status !== status) throw new Error(`POST ${path} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

const children: Subprocess[] = [];
const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-watch-batch-"));
try {
  await main();
} finally {
  await stopAll(children);
  rmSync(dir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  const configPath = writeDaemonConfig(dir, `sqlite://${dir}/cw.db`, ["[rate_limit]", "per_key_rps = 1000000", "[billing]", "enabled = false"]);
  const loaded = loadConfig(configPath);
  if (!loaded.ok) throw new Error(loaded.error);
  const ctx = await openContext(loaded.config, { env: {} });
  const plan = await setPlan(ctx.db, ctx.clock, { name: "bulk", slots: ADDRESSES + SINGLE });
  if (!plan.ok) throw new Error(plan.error);
  const made = await createAccount(ctx, { name: "bulk", plan: "bulk" });
  if (!made.ok) throw new Error(made.error);
  const key = await createApiKey(ctx, { accountId: made.account.id, allowIps: [] });
  if (!key.ok) throw new Error(key.error);
  const creds = { apiKey: key.key.api_key, secret: key.key.secret };
  await ctx.db.destroy();

  const [daemon] = await spawnDaemons(configPath, 1, (p) => children.push(p));
  console.log(`watch batch: ${ADDRESSES} addresses, ${BATCH} a call, one call at a time, one daemon on SQLite; load average ${loadAverage()}`);
  let n = 0;
  const batched = startCpuWindow({ daemon: () => cpuOf(daemon.proc.pid) });
  while (n < ADDRESSES) {
    const size = Math.min(BATCH, ADDRESSES - n);
    const body = { addresses: Array.from({ length: size }, () => ({ network_slug: "eth", address: address(++n) })) };
    const answer = (await post(daemon.url, creds, "/v1/address-watch/addresses/batch", body, 200)) as { results: { error?: string }[] };
    const refused = answer.results.find((r) => r.error);
    if (refused) throw new Error(`an item was refused: ${refused.error}`);
  }
  const b = batched();
  console.log(`batch:  ${ADDRESSES} addresses in ${(b.wallMs / 1000).toFixed(1)} s, ${Math.round((ADDRESSES / b.wallMs) * 1000)} addresses/s, ${cpuPerUnit(b, ADDRESSES).daemon} µs CPU per address (daemon)`);

  const single = startCpuWindow({ daemon: () => cpuOf(daemon.proc.pid) });
  for (let i = 0; i < SINGLE; i++) await post(daemon.url, creds, "/v1/address-watch/addresses", { network_slug: "eth", address: address(++n) }, 201);
  const s = single();
  console.log(`single: ${SINGLE} addresses in ${(s.wallMs / 1000).toFixed(1)} s, ${Math.round((SINGLE / s.wallMs) * 1000)} addresses/s, ${cpuPerUnit(s, SINGLE).daemon} µs CPU per address (daemon)`);
}
