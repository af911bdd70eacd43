import type { Subprocess } from "bun";
import { createAccount } from "../../src/accounts/accounts.ts";
import { setPlan } from "../../src/accounts/plans.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import { addWatch } from "../../src/watch/watches.ts";
import { CLI, cleanEnv } from "../delivery/fixtures.ts";
import { setDefaultEndpoint } from "../support/endpoints.ts";

/** A `chainwatch serve` subprocess whose JSON log lines are kept for assertions. */
export type ServeProcess = { proc: Subprocess<"ignore", "pipe", "pipe">; url: string; lines: Record<string, unknown>[] };

/** Starts `serve` and resolves once it listens; keeps reading (and parsing) its log until it exits. */
export async function spawnLoggedServe(configPath: string): Promise<ServeProcess> {
  const proc = Bun.spawn([process.execPath, CLI, "serve", "--config", configPath], { env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const lines: Record<string, unknown>[] = [];
  let listening: (url: string) => void = () => {};
  const url = new Promise<string>((resolve) => (listening = resolve));
  (async () => {
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of proc.stdout) {
      buffered += decoder.decode(chunk);
      const parts = buffered.split("\n");
      buffered = parts.pop() ?? "";
      for (const part of parts) {
        if (!part.trim()) continue;
        const line = JSON.parse(part) as Record<string, unknown>;
        lines.push(line);
        if (line.msg === "listening") listening(String(line.url).replace(/\/$/, ""));
      }
    }
  })();
  const started = await Promise.race([url, proc.exited.then(async () => Promise.reject(new Error(`serve exited: ${await new Response(proc.stderr).text()}`)))]);
  return { proc, url: started, lines };
}

/** The `[networks.anv]` lines of a config following one anvil node from height 0. */
export function followedNetworkToml(anvilUrl: string, opts: { pollMs: number; maxReorgDepth?: number }): string[] {
  return [
    "[networks.anv]",
    'family = "evm"',
    "confirmations = 1",
    `rpc_urls = ["${anvilUrl}"]`,
    "follow = true",
    "start_height = 0",
    `poll_interval_ms = ${opts.pollMs}`,
    ...(opts.maxReorgDepth === undefined ? [] : [`max_reorg_depth = ${opts.maxReorgDepth}`]),
  ];
}

/**
 * Opens the context of a config file and makes an account (plan `p`, 5 slots) watching `address`
 * on `anv`, its webhook pointed at `webhookUrl` when given. The caller destroys `ctx.db`.
 */
export async function openWithWatcher(configPath: string, opts: { name: string; address: string; webhookUrl?: string }): Promise<{ ctx: Context; accountId: string }> {
  const loaded = loadConfig(configPath);
  if (!loaded.ok) throw new Error(loaded.error);
  const ctx = await openContext(loaded.config, { env: {} });
  const plan = await setPlan(ctx.db, ctx.clock, { name: "p", slots: 5 });
  if (!plan.ok) throw new Error(plan.error);
  const made = await createAccount(ctx, { name: opts.name, plan: "p" });
  if (!made.ok) throw new Error(made.error);
  const accountId = made.account.id;
  if (opts.webhookUrl) await setDefaultEndpoint(ctx.db, accountId, { url: opts.webhookUrl, enabled: true });
  const watched = await addWatch(ctx.db, { accountId, network: "anv", address: opts.address.toLowerCase(), now: Date.now() });
  if (!watched.ok) throw new Error("watch refused");
  return { ctx, accountId };
}
