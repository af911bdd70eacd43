/**
 * The address the daemon is reached at from outside, without a trailing slash: `[server]
 * public_url` when set (a proxy in front), else `http://<server.host>:<port>` with the port the
 * server actually listens on (`port = 0` picks one at start). An unspecified host (0.0.0.0, ::)
 * names no machine a payer could reach, so it becomes localhost; an IPv6 host is bracketed.
 */
export function publicBaseUrl(server: { host: string; port: number; public_url: string }, listeningPort: number = server.port): string {
  if (server.public_url !== "") return server.public_url.replace(/\/+$/, "");
  const host = ["0.0.0.0", "::", ""].includes(server.host) ? "localhost" : server.host;
  return `http://${host.includes(":") ? `[${host}]` : host}:${listeningPort}`;
}
