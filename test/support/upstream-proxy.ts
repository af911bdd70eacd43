// A small JSON-RPC proxy in front of a real node, for the upstream quorum tests: an honest mirror
// (what the node says, under another URL), one that is down (503) while `down` is set, or a liar
// whose `rewrite` changes what the node answered. Listens on 127.0.0.1, stopped by the test.

export type UpstreamProxy = {
  url: string;
  /** While true, every request is answered 503 without reaching the node. */
  down: boolean;
  /** Requests that reached the node. */
  forwarded: number;
  stop(): void;
};

/** Starts a proxy to `target`; `rewrite` turns the node's answer text (and the request's) into what the proxy answers. */
export function startUpstreamProxy(target: string, rewrite?: (answer: string, request: string) => string | Promise<string>, mapRequest?: (request: string) => string): UpstreamProxy {
  const proxy: UpstreamProxy = {
    url: "",
    down: false,
    forwarded: 0,
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (proxy.down) return new Response("down", { status: 503 });
      const request = await req.text();
      proxy.forwarded += 1;
      // The node's credentials are the client's: a proxy URL with user:pass@ passes them on.
      const auth = req.headers.get("authorization");
      const headers: Record<string, string> = { "Content-Type": "application/json", ...(auth ? { Authorization: auth } : {}) };
      const res = await fetch(target, { method: "POST", headers, body: mapRequest ? mapRequest(request) : request });
      const answer = await res.text();
      return new Response(rewrite ? await rewrite(answer, request) : answer, { status: res.status, headers: { "Content-Type": "application/json" } });
    },
  });
  proxy.url = `http://127.0.0.1:${server.port}`;
  return proxy;
}
