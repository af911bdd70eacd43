import { checkWebhookTarget, type Resolver, type TargetCheck, type TargetFailure } from "./target-guard.ts";

/** What guardedFetch needs: the fetch to connect with, the resolver to check with, and the policy. */
export type GuardedFetchDeps = {
  fetch: typeof fetch;
  resolve: Resolver;
  allowPrivate: boolean;
  /**
   * Checks already made, reused while private targets are allowed: the check then needs no DNS
   * and depends on the URL alone. The caller bounds its lifetime (the delivery loop keeps one per pass).
   */
  checkedUrls?: Map<string, TargetCheck>;
};

/** A refused target (nothing was sent), or the answer; network failures are thrown as by fetch. */
export type GuardedResponse = { ok: true; url: URL; response: Response } | TargetFailure;

/** Upper bound on `checkedUrls`, which is cleared when it reaches it. */
const CHECKED_URLS_MAX = 1024;

/**
 * Checks `raw` with the target guard, resolving its host once, then sends the request to the very
 * address that passed the check (pinnedRequest): a name that answers a public address to the check
 * and 127.0.0.1 a moment later (DNS rebinding) never gets a second lookup. Redirects are never
 * followed, whatever `init` says, since a 3xx could point anywhere. The one outbound path for
 * webhook deliveries and the AML http provider.
 */
export async function guardedFetch(deps: GuardedFetchDeps, raw: string, init: RequestInit): Promise<GuardedResponse> {
  const memo = deps.allowPrivate ? deps.checkedUrls : undefined;
  let check = memo?.get(raw);
  if (!check) {
    check = await checkWebhookTarget(raw, { allowPrivate: deps.allowPrivate, resolve: deps.resolve });
    if (memo) {
      if (memo.size >= CHECKED_URLS_MAX) memo.clear();
      memo.set(raw, check);
    }
  }
  if (!check.ok) return check;
  // Never a redirect: an init that already says so (the delivery loop's) is used as it is, not copied.
  const [url, pinnedInit] = pinnedRequest(check.url, check.address, init.redirect === "manual" ? init : { ...init, redirect: "manual" });
  return { ok: true, url: check.url, response: await deps.fetch(url, pinnedInit) };
}

/**
 * The URL and options that reach `url` through `address` without a DNS lookup: the host in the URL
 * becomes the address, while the `Host` header and the TLS server name (SNI and the certificate
 * check) stay the original name, so the receiver sees the request it would have seen by name.
 * With no address (an IP literal, or private targets allowed) the request is left as it is.
 */
export function pinnedRequest(url: URL, address: string | null, init: RequestInit): [string, RequestInit] {
  if (address === null) return [url.href, init];
  const pinned = new URL(url.href);
  pinned.hostname = address.includes(":") ? `[${address}]` : address;
  const headers = new Headers(init.headers);
  headers.set("host", url.host);
  const out: RequestInit = { ...init, headers };
  if (url.protocol === "https:") {
    const tls = (init as BunFetchRequestInit).tls;
    // A fully qualified "name." is the same name to a certificate.
    (out as BunFetchRequestInit).tls = { ...tls, serverName: url.hostname.replace(/\.$/, "") };
  }
  return [pinned.href, out];
}
