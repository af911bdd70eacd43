// A second baseline for `bench:rpc`: the least an HTTP JSON-RPC proxy can do — read the body,
// POST it to the node with Bun's fetch (keep-alive), answer with the node's bytes. No auth, no
// metering, no failover: what one extra HTTP hop costs on this machine.
// `bun bench/support/bare-rpc-proxy.ts <port> <upstream url> [elysia]`: with `elysia`, the same
// proxy as one Elysia route (`POST /rpc/:network/:key`, body unparsed, configured as the daemon
// configures Elysia) instead of a bare Bun.serve: what the framework's request pipeline adds to a
// call. chainwatch answers `POST /rpc/…` from Bun's own routes (src/http/native-routes.ts), so the
// bare Bun.serve proxy is its baseline; this one shows what that choice saves.
import { Elysia } from "elysia";

if (import.meta.main) {
  const port = Number(process.argv[2]);
  const upstream = String(process.argv[3]);
  const forward = async (req: Request) => {
    const res = await fetch(upstream, { method: "POST", headers: { "Content-Type": "application/json" }, body: await req.text() });
    return new Response(await res.text(), { status: res.status, headers: { "content-type": "application/json" } });
  };
  if (process.argv[4] === "elysia") {
    new Elysia({ strictPath: true, systemRouter: false })
      .post("/rpc/:network/:key", ({ request }) => forward(request), { parse: "none" })
      .listen({ hostname: "127.0.0.1", port, development: false, reusePort: false });
  } else {
    Bun.serve({ hostname: "127.0.0.1", port, fetch: forward });
  }
}
