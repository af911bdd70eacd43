#!/usr/bin/env bun
// `bun run bench:orders`: what an order costs the daemon, and what a payment wallet adds to it.
//
// 1. A `chainwatch serve` subprocess over SQLite takes POST /v1/payments, signed, IN_FLIGHT at a
//    time: orders with an address the client gives, then orders without one that take the next
//    address of the account's wallet (evm bip44; btc wpkh and tr). Prints the daemon's CPU µs per
//    order from /proc and, for each wallet kind, what derivation and allocation add.
// 2. Every order made in 1 read back once by GET /v1/payments/{id}, IN_FLIGHT at a time, for the
//    orders with a given address and the evm wallet's: the daemon's CPU µs per read.
// 3. In this process, the derivation alone: CPU µs per address of an opened wallet, and what
//    opening one costs (unseal, read the key, derive its receiving branch) — once per wallet and
//    process.
// Knobs (env): BENCH_ORDERS (per run, default 2000).
import type { Subprocess } from "bun";
import { createHash, createHmac } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HDKey } from "@scure/bip32";
import { createApiKey } from "../src/accounts/api-keys.ts";
import { createAccount } from "../src/accounts/accounts.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext } from "../src/daemon.ts";
import { createWalletDerivers } from "../src/payments/wallets/derivers.ts";
import { putWallet } from "../src/payments/wallets/put-wallet.ts";
import { createSecretBox } from "../src/secrets/secret-box.ts";
import { cpuOf, cpuPerUnit, loadAverage, startCpuWindow } from "./support/cpu.ts";
import { spawnDaemons, stopAll, writeDaemonConfig } from "./support/daemons.ts";

const ORDERS = Number(process.env.BENCH_ORDERS ?? 2000);
const IN_FLIGHT = 4;
const WARMUP = 200;

/** Account keys of a throwaway seed: what a merchant's wallet would export. */
const root = HDKey.fromMasterSeed(crypto.getRandomValues(new Uint8Array(32)));
const EVM_KEY = root.derive("m/44'/60'/0'").publicExtendedKey;
const BTC_XPUB = root.derive("m/84'/0'/0'").publicExtendedKey;
const TR_XPUB = root.derive("m/86'/0'/0'").publicExtendedKey;
const KINDS = [
  { label: "evm bip44", network: "eth", key: EVM_KEY },
  { label: "btc wpkh", network: "btc", key: `wpkh(${BTC_XPUB}/0/*)` },
  { label: "btc tr", network: "btc", key: `tr(${TR_XPUB}/0/*)` },
];

type Creds = { apiKey: string; secret: string };

function signed(creds: Creds, method: string, path: string, body: string) {
  const ts = String(Math.floor(Date.now() / 1000));
  const hash = createHash("sha256").update(body).digest("hex");
  const signature = createHmac("sha256", creds.secret).update(`${ts}\n${method}\n${path}\n${hash}`).digest("hex");
  return { "Content-Type": "application/json", "X-Api-Key": creds.apiKey, "X-Timestamp": ts, "X-Signature": signature };
}

/** POSTs `count` orders, IN_FLIGHT at a time; `body(i)` makes the i-th. Answers the orders' ids. */
async function post(url: string, creds: Creds, count: number, body: (i: number) => Record<string, unknown>): Promise<string[]> {
  let next = 0;
  const ids: string[] = [];
  const lane = async () => {
    while (next < count) {
      const text = JSON.stringify(body(next++));
      const res = await fetch(`${url}/v1/payments`, { method: "POST", body: text, headers: signed(creds, "POST", "/v1/payments", text) });
      if (res.status !== 201) throw new Error(`POST /v1/payments answered ${res.status}: ${await res.text()}`);
      ids.push(((await res.json()) as { payment_id: string }).payment_id);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return ids;
}

/** GETs each order once, IN_FLIGHT at a time: what a merchant polling its orders costs. */
async function read(url: string, creds: Creds, ids: readonly string[]): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < ids.length) {
      const path = `/v1/payments/${ids[next++]}`;
      const res = await fetch(`${url}${path}`, { headers: signed(creds, "GET", path, "") });
      if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
}

/** CPU µs per call of `f` in this process, after a warm-up. */
function cpuMicros(n: number, f: (i: number) => void): number {
  for (let i = 0; i < Math.min(200, n); i++) f(i);
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) f(i);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

const children: Subprocess[] = [];
const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-orders-"));
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
  // One account per kind: each has a wallet on its network, and one more gives addresses.
  const accounts: { label: string; network: string; creds: Creds }[] = [];
  for (const k of [{ label: "given address", network: "eth", key: null }, ...KINDS]) {
    const made = await createAccount(ctx, { name: `bench-${accounts.length}` });
    if (!made.ok) throw new Error(made.error);
    const key = await createApiKey(ctx, { accountId: made.account.id, allowIps: [] });
    if (!key.ok) throw new Error(key.error);
    if (k.key) {
      const put = await putWallet(ctx, made.account.id, k.network, { key: k.key });
      if (!put.ok) throw new Error(put.error);
    }
    accounts.push({ label: k.label, network: k.network, creds: { apiKey: key.key.api_key, secret: key.key.secret } });
  }
  await ctx.db.destroy();

  const [daemon] = await spawnDaemons(configPath, 1, (p) => children.push(p));
  console.log(`orders: ${ORDERS} per run, ${IN_FLIGHT} in flight, one daemon on SQLite; load average ${loadAverage()}`);
  const perOrder: Record<string, number> = {};
  const made = new Map<string, string[]>();
  let n = 0;
  for (const a of accounts) {
    const body = (i: number) => ({
      order_id: `o-${++n}-${i}`,
      network: a.network,
      amount: "1",
      ...(a.label === "given address" ? { address: `0x${n.toString(16).padStart(40, "0")}` } : {}),
    });
    await post(daemon.url, a.creds, WARMUP, body);
    const window = startCpuWindow({ daemon: () => cpuOf(daemon.proc.pid) });
    made.set(a.label, await post(daemon.url, a.creds, ORDERS, body));
    const w = window();
    perOrder[a.label] = cpuPerUnit(w, ORDERS).daemon;
    console.log(`  ${a.label.padEnd(14)} ${String(perOrder[a.label]).padStart(5)} µs CPU per order (daemon), ${Math.round((ORDERS / w.wallMs) * 1000)} orders/s`);
  }
  for (const k of KINDS) console.log(`  derivation and allocation, ${k.label}: ${perOrder[k.label] - perOrder["given address"]} µs CPU per order`);

  // Each order read once by GET /v1/payments/{id}, as a merchant polling its orders would; a
  // wallet's order also looks up its late payments.
  for (const a of accounts.slice(0, 2)) {
    const ids = made.get(a.label) as string[];
    await read(daemon.url, a.creds, ids.slice(0, WARMUP));
    const window = startCpuWindow({ daemon: () => cpuOf(daemon.proc.pid) });
    await read(daemon.url, a.creds, ids);
    const w = window();
    console.log(`  read, ${a.label.padEnd(14)} ${String(cpuPerUnit(w, ids.length).daemon).padStart(5)} µs CPU per GET /v1/payments/{id} (daemon), ${Math.round((ids.length / w.wallMs) * 1000)} reads/s`);
  }

  // The derivation alone, in this process.
  const box = createSecretBox(crypto.getRandomValues(new Uint8Array(32)));
  console.log("derivation alone (this process):");
  for (const k of KINDS) {
    const network = loaded.config.networks[k.network];
    const { parseWalletKey } = await import("../src/payments/wallets/wallet-key.ts");
    const parsed = parseWalletKey(network.family, k.key);
    if (!parsed.ok) throw new Error(parsed.error);
    const sealed = box.seal(parsed.key.canonical);
    const derive = createWalletDerivers(box).of({ id: "w", key_sealed: sealed }, network);
    const perAddress = cpuMicros(2000, (i) => derive(i));
    const perOpen = cpuMicros(200, (i) => createWalletDerivers(box).of({ id: `w${i}`, key_sealed: sealed }, network));
    console.log(`  ${k.label.padEnd(10)} ${Math.round(perAddress)} µs CPU per address; opening the wallet ${Math.round(perOpen)} µs (once per wallet and process)`);
  }
}
