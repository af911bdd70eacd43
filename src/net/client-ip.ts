/** How an edge (the signed API, /rpc, the cabinet's sign-in) learns the client's IP: the socket peer, or the first X-Forwarded-For entry behind a trusted proxy. */
export type ClientIpResolver = (request: Request, server: { requestIP(r: Request): { address: string } | null } | null) => string | null;

export function clientIpResolver(opts: { trustProxy: boolean; fallback?: string | null }): ClientIpResolver {
  return (request, server) => {
    if (opts.trustProxy) {
      const first = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
      if (first) return first;
    }
    // `server` is null under app.handle() (tests): the injected fallback stands in for the peer.
    return server?.requestIP(request)?.address ?? opts.fallback ?? null;
  };
}
