/**
 * A node at some distance, for the follower benches' BENCH_NODE_LATENCY_MS: a server on 127.0.0.1
 * that holds every POST `latencyMs`, then passes it to `nodeUrl` with its headers (a node's basic
 * auth included) and answers what the node answered. Stopped by its caller.
 */
export function startDelayingProxy(nodeUrl: string, latencyMs: number): ReturnType<typeof Bun.serve> {
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = await req.text();
      await Bun.sleep(latencyMs);
      // A request still held when the run ends finds the node stopped: an answer, not a crash.
      return fetch(nodeUrl, { method: "POST", headers: req.headers, body }).catch((e) => new Response(String(e), { status: 502 }));
    },
  });
}
