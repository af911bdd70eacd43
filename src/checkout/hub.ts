import type { NetworkConfig } from "../config/schema.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../lib/clock.ts";
import type { Logger } from "../lib/log.ts";
import { createWorker, type Worker } from "../lib/worker.ts";
import { type CheckoutOrder, checkoutOrdersById } from "../payments/checkout-orders.ts";
import { SECURITY_HEADERS } from "./assets.ts";
import { withTipsOfOneMoment } from "./consistent-read.ts";
import { checkoutJson, checkoutView } from "./view-model.ts";

// The checkout pages' live updates (docs/checkout.md): one Server-Sent Events stream per open page,
// fed by one hub per daemon. Order states are committed by the ingest transaction, the AML worker
// and the expiry (possibly in another daemon); the hub is woken after those commits here and looks
// every second anyway, and each look reads every watched order in one statement (a few, past 500
// orders), each of their networks' tips, and the orders again (consistent-read.ts), whatever the
// number of streams. A stream gets an event only when its page's JSON changed, including "k of n"
// confirmations as the tip moves, and is closed after the event that says the order is final.

/** Encoded once: every stream's bytes. */
const encoder = new TextEncoder();

/** A comment line every few seconds: Bun's server (10 s) and proxies drop a connection that stays silent. */
export const HEARTBEAT_MS = 5000;

/** The reconnection delay a browser's EventSource is told to use after a dropped stream. */
const RETRY_MS = 3000;

/** The tips confirmations count against, by network (ingest/quorum-heights.ts's confirmationTips in the daemon). */
export type TipReader = (db: Db, networks: Iterable<string>) => Promise<Map<string, number>>;

export type HubDeps = {
  db: Db;
  clock: Clock;
  log: Logger;
  networks: Record<string, NetworkConfig>;
  tips: TipReader;
  maxStreams: number;
  maxStreamsPerClient: number;
};

/** Why a stream was not opened: this client holds its share, or the daemon holds all it may. */
export type Refusal = "client_limit" | "total_limit";

export type CheckoutHub = {
  /**
   * A stream of `paymentId`'s live updates for `client` (its throttle key), starting with `first`
   * (the page's JSON now); closed at once after it when `final`. A refusal when over a bound.
   */
  open(paymentId: string, client: string, first: string, final: boolean, signal?: AbortSignal): Response | Refusal;
  /** Look now: an order may have moved. */
  wake(): void;
  /** Streams open now. */
  size(): number;
  /** The worker the daemon starts and stops; stopping it ends every stream. */
  worker: Worker;
};

type Stream = {
  paymentId: string;
  client: string;
  controller: ReadableStreamDefaultController<Uint8Array> | null;
  /** The JSON of the last event it was sent. */
  last: string;
  open: boolean;
};

export function createCheckoutHub(deps: HubDeps): CheckoutHub {
  const byOrder = new Map<string, Set<Stream>>();
  const perClient = new Map<string, number>();
  let total = 0;
  let stopped = false;
  let lastBeat = deps.clock.monotonic();

  const render = (order: CheckoutOrder, tip: number | null) => {
    const net = deps.networks[order.network];
    if (!net) return null;
    const view = checkoutView(order, order.network, net, tip, deps.clock.now());
    return { json: JSON.stringify(checkoutJson(view)), final: view.final };
  };

  const write = (s: Stream, text: string) => {
    if (!s.open || !s.controller) return;
    try {
      s.controller.enqueue(encoder.encode(text));
    } catch {
      drop(s);
    }
  };

  const send = (s: Stream, json: string) => {
    s.last = json;
    write(s, `event: status\ndata: ${json}\n\n`);
  };

  /** Forgets a stream (and closes it if it is still open); counted once whatever calls it. */
  function drop(s: Stream) {
    if (!s.open) return;
    s.open = false;
    try {
      s.controller?.close();
    } catch {}
    const set = byOrder.get(s.paymentId);
    set?.delete(s);
    if (set?.size === 0) byOrder.delete(s.paymentId);
    const n = (perClient.get(s.client) ?? 1) - 1;
    if (n <= 0) perClient.delete(s.client);
    else perClient.set(s.client, n);
    total -= 1;
  }

  async function look(): Promise<void> {
    if (byOrder.size === 0) return;
    const ids = [...byOrder.keys()];
    const { orders, tips } = await withTipsOfOneMoment(
      () => checkoutOrdersById(deps.db, ids),
      (read) => new Set([...read.values()].map((o) => o.network)),
      (networks) => deps.tips(deps.db, networks),
      (read) => JSON.stringify([...read.values()]),
    );
    for (const [paymentId, streams] of byOrder) {
      const order = orders.get(paymentId);
      const now = order ? render(order, tips.get(order.network) ?? null) : null;
      // Gone (or its network no longer configured): nothing more will come.
      if (!now) {
        for (const s of [...streams]) drop(s);
        continue;
      }
      for (const s of [...streams]) {
        if (s.last !== now.json) send(s, now.json);
        if (now.final) drop(s);
      }
    }
    const mono = deps.clock.monotonic();
    if (mono - lastBeat >= HEARTBEAT_MS) {
      lastBeat = mono;
      for (const streams of byOrder.values()) for (const s of streams) write(s, ":\n\n");
    }
  }

  const worker = createWorker({
    name: "checkout-live",
    log: deps.log,
    schedule: "* * * * * *",
    failure: "checkout live updates failed",
    run: look,
    onStop() {
      stopped = true;
      for (const streams of [...byOrder.values()]) for (const s of [...streams]) drop(s);
    },
  });

  return {
    open(paymentId, client, first, final, signal) {
      if (stopped || total >= deps.maxStreams) return "total_limit";
      if ((perClient.get(client) ?? 0) >= deps.maxStreamsPerClient) return "client_limit";
      const s: Stream = { paymentId, client, controller: null, last: first, open: true };
      total += 1;
      perClient.set(client, (perClient.get(client) ?? 0) + 1);
      const set = byOrder.get(paymentId);
      if (set) set.add(s);
      else byOrder.set(paymentId, new Set([s]));
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          s.controller = controller;
          write(s, `retry: ${RETRY_MS}\nevent: status\ndata: ${first}\n\n`);
          if (final) drop(s);
        },
        cancel() {
          drop(s);
        },
      });
      signal?.addEventListener("abort", () => drop(s), { once: true });
      return new Response(body, {
        headers: { ...SECURITY_HEADERS, "content-type": "text/event-stream; charset=utf-8", "x-accel-buffering": "no" },
      });
    },
    wake: () => worker.wake(),
    size: () => total,
    worker,
  };
}
