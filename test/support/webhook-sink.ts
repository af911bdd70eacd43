/** One request a sink received, with its exact body text. */
export type Received = { method: string; path: string; headers: Record<string, string>; body: string; at: number };

export type Responder = (req: Request, index: number) => Response | Promise<Response>;

export type WebhookSink = {
  url: string;
  received: Received[];
  /** Replaces how the sink answers (default: 200 "ok"). */
  respond(fn: Responder): void;
  /** Resolves once `count` requests arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  stop(): Promise<void>;
};

/** A real webhook receiver: Bun.serve on 127.0.0.1, recording every request. */
export function startWebhookSink(): WebhookSink {
  const received: Received[] = [];
  let responder: Responder = () => new Response("ok");
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = await req.text();
      const index = received.length;
      received.push({
        method: req.method,
        path: new URL(req.url).pathname,
        headers: Object.fromEntries(req.headers),
        body,
        at: Date.now(),
      });
      for (const w of waiters.filter((w) => received.length >= w.count)) w.resolve();
      return responder(req, index);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hook`,
    received,
    respond(fn) {
      responder = fn;
    },
    waitFor(count, timeoutMs = 20_000) {
      if (received.length >= count) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`sink got ${received.length} of ${count} requests`)), timeoutMs);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve(received)) });
      });
    },
    async stop() {
      await server.stop(true);
    },
  };
}
