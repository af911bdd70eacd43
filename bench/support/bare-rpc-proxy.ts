// A second baseline for `bench:rpc`: the least an HTTP JSON-RPC proxy can do — read the body,
// POST it to the node with Bun's fetch (keep-alive), answer with the node's bytes. No auth, no
// metering, no failover: what one extra HTTP hop costs on this machine.
// `bun bench/support/bare-rpc-proxy.ts <port> <upstream url>`.

if (import.meta.main) {
  const port = Number(process.argv[2]);
  const upstream = String(process.argv[3]);
  Bun.serve({
    hostname: "127.0.0.1",
    port,
    async fetch(req) {
      const res = await fetch(upstream, { method: "POST", headers: { "Content-Type": "application/json" }, body: await req.text() });
      return new Response(await res.text(), { status: res.status, headers: { "content-type": "application/json" } });
    },
  });
}
