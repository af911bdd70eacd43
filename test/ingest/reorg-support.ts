import type { Clock } from "../../src/lib/clock.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";

// Hand-built chains for the reorg tests: blocks named by their hash (`0xa3` = chain a, height 3).

export const W = "0x1111111111111111111111111111111111111111";
export const X = "0x2222222222222222222222222222222222222222";

export type Tx = { hash: string; from: string; to: string; value: string };
export type Block = { network: string; height: number; hash: string; parent_hash: string | null; timestamp: number; transactions: Tx[] };

/** Block `hash` at `height` whose parent is `parent`. */
export function blk(height: number, hash: string, parent: string | null, transactions: Tx[] = []): Block {
  return { network: "eth", height, hash, parent_hash: parent, timestamp: 1_763_750_000 + height, transactions };
}

/** A native transfer of `value` wei from X to `to`. */
export function pay(hash: string, value = "1000", to = W): Tx {
  return { hash, from: X, to, value };
}

/** Blocks `<prefix>from` … `<prefix>to` of one chain, each the parent of the next; `first` is the parent of the first. */
export function chain(prefix: string, from: number, to: number, first: string, txs: Record<number, Tx[]> = {}): Block[] {
  const out: Block[] = [];
  let parent = first;
  for (let h = from; h <= to; h++) {
    const hash = `${prefix}${h}`;
    out.push(blk(h, hash, parent, txs[h] ?? []));
    parent = hash;
  }
  return out;
}

export type Rig = { td: TestDaemon; sink: WebhookSink; client: TestClient; watchId: string; stop(): Promise<void> };

/** A daemon (eth: 3 confirmations, max_reorg_depth 3 unless told), one account watching W, its webhook at a real receiver. */
export async function startRig(opts: { minConfirmations?: number; maxReorgDepth?: number; clock?: Clock } = {}): Promise<Rig> {
  const td = await startTestDaemon({
    clock: opts.clock,
    config: { networks: { eth: { family: "evm", decimals: 18, confirmations: 3, max_reorg_depth: opts.maxReorgDepth ?? 3 } } },
  });
  const sink = startWebhookSink();
  const client = await td.client({ credits: 1_000_000 });
  const watch = await client.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address: W });
  if (watch.status !== 201) throw new Error(`watch answered ${watch.status}`);
  const watchId = ((await watch.json()) as { watch_id: string }).watch_id;
  const events = opts.minConfirmations === undefined ? undefined : { min_confirmations: opts.minConfirmations };
  const hook = await client.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true, events });
  if (hook.status !== 200) throw new Error(`webhook answered ${hook.status}: ${await hook.text()}`);
  return {
    td,
    sink,
    client,
    watchId,
    async stop() {
      await sink.stop();
      await td.stop();
    },
  };
}

/** POSTs a batch and returns status and parsed body. */
export async function ingest(td: TestDaemon, batch: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await td.ingest(batch);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export type Listed = Record<string, unknown> & { id: string; type: string; removed: boolean };

/** The account's events listing (up to 1,000), in order. */
export async function listed(c: TestClient): Promise<Listed[]> {
  const res = await c.request("GET", "/v1/address-watch/events?limit=1000");
  return ((await res.json()) as { events: Listed[] }).events;
}

/**
 * Waits until every delivery let out so far (not held) succeeded and `sink` (the rig's own unless
 * given) got them all; returns the bodies it received, in arrival order. Once this holds nothing
 * else is queued, so a webhook that is absent now is never sent.
 */
export async function settled(rig: Rig, sink: WebhookSink = rig.sink, kind: "event" | "payment" = "event"): Promise<string[]> {
  const db = rig.td.ctx.db;
  const outstanding = async () => (await db.selectFrom("deliveries").select("status").where("kind", "=", kind).execute()).filter((d) => d.status !== "held");
  for (;;) {
    await sink.waitFor((await outstanding()).length);
    const rows = await outstanding();
    if (rows.every((d) => d.status === "succeeded") && rows.length === sink.received.length) break;
    // The receiver has answered; the loop records the outcome right after.
    await Bun.sleep(5);
  }
  return sink.received.map((r) => r.body);
}

/** `body` as JSON with `"removed": true`, keys in place: what a retraction must send. */
export function asRemoved(body: string): string {
  return JSON.stringify({ ...JSON.parse(body), removed: true });
}

/** Sorted copies, for comparing sets of bodies whose delivery order is not guaranteed. */
export const sorted = (xs: readonly string[]) => [...xs].sort();
