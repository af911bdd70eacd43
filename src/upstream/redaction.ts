// What a network's upstreams are told in confidence, and how it is kept out of everything chainwatch
// says about them. A node or a provider may echo what it was sent (a TronGrid error carried the
// TRON-PRO-API-KEY; a proxy's error page may quote the Authorization header or the request URL),
// and such text reaches logs, `follow status` and /rpc answers.

/** What stands in for a secret in text chainwatch shows. */
export const REDACTED = "[redacted]";

/** Path segments and query values this long or longer are taken for keys (`/v3/<32 hex>`); shorter ones are words (`/rpc`, `/ext/bc/C/rpc`). */
export const MIN_URL_KEY_LENGTH = 16;

/** The ellipsis a preview of node text ends with when it was cut (follow/core/upstream-data.ts). */
const CUT = "...";

/** The shortest start of a secret redacted where a preview cut it off. */
const MIN_CUT_PREFIX = 4;

/**
 * The secrets one upstream URL carries: its user name and password as written and
 * percent-decoded, the Basic authorization value fetch sends for them, and each path segment and
 * query value of MIN_URL_KEY_LENGTH characters or more.
 */
export function urlSecrets(url: string): string[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const out: string[] = [];
  const both = (raw: string) => out.push(raw, decoded(raw));
  both(u.username);
  both(u.password);
  if (u.username !== "" || u.password !== "") out.push(Buffer.from(`${decoded(u.username)}:${decoded(u.password)}`).toString("base64"));
  for (const segment of u.pathname.split("/")) if (segment.length >= MIN_URL_KEY_LENGTH) both(segment);
  for (const value of u.searchParams.values()) if (value.length >= MIN_URL_KEY_LENGTH) out.push(value, encodeURIComponent(value));
  return out;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * A function replacing every secret in a text with REDACTED: as written and as JSON escapes it
 * (a preview of node text is JSON), regardless of case (a node may print a hex key in capitals),
 * longest first (a secret holding a shorter one goes whole), and the start of one that a preview
 * cut off (`…"abcd...`), of MIN_CUT_PREFIX characters or more. With no secrets it hands the text
 * back as it is.
 */
export function redactorOf(secrets: readonly string[]): (text: string) => string {
  const spellings = secrets.flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]).filter((s) => s !== "");
  const distinct = [...new Set(spellings)].sort((a, b) => b.length - a.length);
  if (distinct.length === 0) return (text) => text;
  const whole = new RegExp(distinct.map(escapeRegExp).join("|"), "gi");
  const starts = distinct.map((s) => s.toLowerCase());
  return (text) => {
    const out = text.replace(whole, REDACTED);
    return out.includes(CUT) ? redactCutStarts(out, starts) : out;
  };
}

/** Most cut previews one text is searched for: a message quotes one or two; more is a node's noise. */
const MAX_CUTS = 16;

/** Each `...` preceded by the start of a secret (MIN_CUT_PREFIX characters or more) loses that start. */
function redactCutStarts(text: string, starts: readonly string[]): string {
  const longestSecret = starts[0].length;
  let out = text;
  let at = out.indexOf(CUT);
  for (let n = 0; at >= 0 && n < MAX_CUTS; n++) {
    const before = out.slice(Math.max(0, at - longestSecret), at).toLowerCase();
    let cut = 0;
    for (const s of starts) cut = Math.max(cut, cutStart(before, s));
    if (cut > 0) {
      out = out.slice(0, at - cut) + REDACTED + out.slice(at);
      at += REDACTED.length - cut;
    }
    at = out.indexOf(CUT, at + CUT.length);
  }
  return out;
}

/** The length of the longest proper start of `secret` (MIN_CUT_PREFIX characters or more) that `text` ends with; 0 when none. */
function cutStart(text: string, secret: string): number {
  for (let from = Math.max(0, text.length - secret.length + 1); from <= text.length - MIN_CUT_PREFIX; from++) {
    if (text.charCodeAt(from) === secret.charCodeAt(0) && secret.startsWith(text.slice(from))) return text.length - from;
  }
  return 0;
}

/**
 * A JSON value with `redact` applied to every string and member name: the same value when nothing
 * changed (copied only from the first change on, so a node error without secrets allocates nothing).
 */
export function redactJson(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === "string") return redact(value);
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const r = redactJson(value[i], redact);
      if (out === null && r !== value[i]) out = value.slice(0, i);
      out?.push(r);
    }
    return out ?? value;
  }
  const members = value as Record<string, unknown>;
  let out: Record<string, unknown> | null = null;
  for (const k in members) {
    const key = redact(k);
    const r = redactJson(members[k], redact);
    if (out === null && (key !== k || r !== members[k])) {
      out = {};
      for (const done in members) {
        if (done === k) break;
        define(out, done, members[done]);
      }
    }
    if (out !== null) define(out, key, r);
  }
  return out ?? value;
}

/** Sets a member as JSON.parse would: one named `__proto__` stays a member. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
