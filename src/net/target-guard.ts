import { lookup } from "node:dns/promises";
import type { Explained, TargetRefusal } from "../lib/error-codes.ts";
import { isNonPublicIp, parseIp } from "./ip";

export type { TargetRefusal };

/** Resolves a hostname to every IP address (as text) it currently points at. */
export type Resolver = (hostname: string) => Promise<string[]>;

/** Resolves through the operating system (hosts file, then DNS), returning every address. */
export const systemResolver: Resolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true });
  return answers.map((answer) => answer.address);
};

/** A refused target: its code, and the sentence naming the field the URL came in (shown to clients verbatim). */
export type TargetFailure = Explained<TargetRefusal>;

/**
 * Outcome of checking a target URL. `address` is the checked IP the request must connect to
 * (see pinnedRequest), or null when there is no name to pin: the host is an IP literal already,
 * or private targets are allowed and nothing was resolved.
 */
export type TargetCheck = { ok: true; url: URL; address: string | null } | TargetFailure;

/** The refusal sentence of a code, naming the field the client sent the URL in (`url` unless told). */
export function refusalReason(code: TargetRefusal, field = "url"): string {
  switch (code) {
    case "NOT_ABSOLUTE_HTTP":
      return `${field} must be an absolute http(s) URL`;
    case "HAS_CREDENTIALS":
      return `${field} must not contain credentials`;
    case "PRIVATE_ADDRESS":
      return `${field} resolves to a private address`;
    case "UNRESOLVABLE":
      return `${field} host could not be resolved`;
  }
}

/**
 * Checks a target URL: absolute http(s), no credentials in it, and (unless allowPrivate) every address its host resolves to is public.
 *
 * The host is resolved once, here. DNS can answer differently a moment later (a zero-TTL name
 * rebinding to 127.0.0.1), so a sender must connect to the returned `address`, never resolve the
 * name again: guardedFetch does both, and never follows redirects.
 */
export async function checkWebhookTarget(
  raw: string,
  opts: { allowPrivate: boolean; resolve: Resolver; field?: string },
): Promise<TargetCheck> {
  const refuse = (code: TargetRefusal): TargetCheck => ({ ok: false, code, error: refusalReason(code, opts.field) });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse("NOT_ABSOLUTE_HTTP");
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") {
    return refuse("NOT_ABSOLUTE_HTTP");
  }
  // Credentials would be stored and echoed back in listings, and they are never needed: we sign.
  if (url.username !== "" || url.password !== "") return refuse("HAS_CREDENTIALS");
  if (opts.allowPrivate) return { ok: true, url, address: null };

  const named = privateByName(url);
  if (named === true) return refuse("PRIVATE_ADDRESS");
  if (named === false) return { ok: true, url, address: null };

  let answers: string[];
  try {
    answers = await opts.resolve(url.hostname);
  } catch {
    return refuse("UNRESOLVABLE");
  }
  const addresses = answers.map((answer) => parseIp(answer));
  // No answer, or one we cannot read, gives nothing to vouch for, so it is refused like a failure.
  if (addresses.length === 0 || addresses.some((ip) => ip === null)) return refuse("UNRESOLVABLE");
  // Every answer must be public: a client may pick any of them, and one private record is enough to pivot.
  if (addresses.some((ip) => ip !== null && isNonPublicIp(ip))) return refuse("PRIVATE_ADDRESS");
  // The first answer is the one the system would try first (RFC 6724 order); no fallback to the
  // others, so one lookup decides where the request goes.
  return { ok: true, url, address: answers[0]! };
}

/**
 * Whether a URL's host is private without asking DNS: true for a private IP literal or localhost,
 * false for a public IP literal, null for a name that must be resolved to tell.
 */
export function privateByName(url: URL): boolean | null {
  // The WHATWG parser has already canonicalized odd v4 spellings (0x7f.1, 2130706433) to dotted quads.
  const literal = parseIp(url.hostname);
  if (literal !== null) return isNonPublicIp(literal);
  // RFC 6761 reserves localhost and its subdomains for loopback, whatever a resolver says.
  const host = url.hostname.endsWith(".") ? url.hostname.slice(0, -1) : url.hostname;
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  return null;
}
