import { cidrContains, parseCidr, parseIp } from "../../src/net/ip.ts";
import type { Resolver } from "../../src/net/target-guard.ts";

const LOOPBACK = ["127.0.0.0/8", "::1/128"].map((c) => parseCidr(c)!);

export type LoopbackNetwork = {
  fetch: typeof fetch;
  /** Every address a connection was opened to (or refused at), as `ip:port`, in order. */
  connections: string[];
};

/**
 * The network as a test may use it, standing in for the operating system under `fetch`: a URL
 * naming a host is resolved through `resolve` at connect time (as the system resolver would, so a
 * rebinding resolver can rebind), and only loopback addresses are really connected to. Any other
 * address is recorded and refused like a closed port, so no traffic leaves the machine.
 */
export function loopbackNetwork(resolve: Resolver): LoopbackNetwork {
  const connections: string[] = [];
  const networkFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const literal = parseIp(url.hostname);
    const address = literal ? url.hostname.replace(/^\[|\]$/g, "") : (await resolve(url.hostname))[0]!;
    const port = url.port || (url.protocol === "https:" ? "443" : "80");
    connections.push(`${address}:${port}`);
    const ip = parseIp(address);
    if (!ip || !LOOPBACK.some((c) => cidrContains(c, ip))) {
      throw Object.assign(new Error(`connect ECONNREFUSED ${address}:${port} (tests reach loopback only)`), { code: "ECONNREFUSED" });
    }
    if (literal) return fetch(url, init);
    // Resolved here, the way the system would: connect to the answer, carrying the name as Host.
    const direct = new URL(url.href);
    direct.hostname = address.includes(":") ? `[${address}]` : address;
    const headers = new Headers(init?.headers);
    if (!headers.has("host")) headers.set("host", url.host);
    return fetch(direct, { ...init, headers });
  };
  return { fetch: networkFetch as typeof fetch, connections };
}

/** A zero-TTL name: answers `first` to the first `times` lookups, then `then` to every later one. */
export function rebindingResolver(first: string, then: string, times = 1): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string): Promise<string[]> => {
    asked.push(hostname);
    return [asked.length <= times ? first : then];
  };
  return Object.assign(resolve, { asked });
}
