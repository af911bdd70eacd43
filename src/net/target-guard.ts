import { lookup } from "node:dns/promises";
import { isNonPublicIp, parseIp } from "./ip";

/** Resolves a hostname to every IP address (as text) it currently points at. */
export type Resolver = (hostname: string) => Promise<string[]>;

/** Resolves through the operating system (hosts file, then DNS), returning every address. */
export const systemResolver: Resolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true });
  return answers.map((answer) => answer.address);
};

/** Outcome of checking a webhook URL; `reason` is shown to API clients verbatim. */
export type TargetCheck = { ok: true; url: URL } | { ok: false; reason: string };

/** The refusal sentences, naming the field the client sent the URL in (`url` unless told). */
export function refusalReasons(field = "url") {
  return {
    notAbsoluteHttp: `${field} must be an absolute http(s) URL`,
    hasCredentials: `${field} must not contain credentials`,
    privateAddress: `${field} resolves to a private address`,
    unresolvable: `${field} host could not be resolved`,
  };
}

/**
 * Checks a webhook URL: absolute http(s), no credentials in it, and (unless allowPrivate) every address its host resolves to is public.
 *
 * This is a point-in-time check: DNS can change before delivery, so the sender must not follow
 * redirects and should connect to a checked address (or re-check) to be safe from rebinding.
 */
export async function checkWebhookTarget(
  raw: string,
  opts: { allowPrivate: boolean; resolve: Resolver; field?: string },
): Promise<TargetCheck> {
  const reason = refusalReasons(opts.field);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse(reason.notAbsoluteHttp);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.hostname === "") {
    return refuse(reason.notAbsoluteHttp);
  }
  // Credentials would be stored and echoed back in listings, and they are never needed: we sign.
  if (url.username !== "" || url.password !== "") return refuse(reason.hasCredentials);
  if (opts.allowPrivate) return { ok: true, url };

  // The WHATWG parser has already canonicalized odd v4 spellings (0x7f.1, 2130706433) to dotted quads.
  const literal = parseIp(url.hostname);
  if (literal !== null) return isNonPublicIp(literal) ? refuse(reason.privateAddress) : { ok: true, url };
  // RFC 6761 reserves localhost and its subdomains for loopback, whatever a resolver says.
  const host = url.hostname.endsWith(".") ? url.hostname.slice(0, -1) : url.hostname;
  if (host === "localhost" || host.endsWith(".localhost")) return refuse(reason.privateAddress);

  let answers: string[];
  try {
    answers = await opts.resolve(url.hostname);
  } catch {
    return refuse(reason.unresolvable);
  }
  const addresses = answers.map((answer) => parseIp(answer));
  // No answer, or one we cannot read, gives nothing to vouch for, so it is refused like a failure.
  if (addresses.length === 0 || addresses.some((ip) => ip === null)) return refuse(reason.unresolvable);
  // Every answer must be public: a client may pick any of them, and one private record is enough to pivot.
  if (addresses.some((ip) => ip !== null && isNonPublicIp(ip))) return refuse(reason.privateAddress);
  return { ok: true, url };
}

function refuse(reason: string): TargetCheck {
  return { ok: false, reason };
}
