import type { Delivery } from "../db/schema.ts";
import type { Clock } from "../lib/clock.ts";
import { guardedFetch } from "../net/guarded-fetch.ts";
import type { Resolver, TargetCheck, TargetRefusal } from "../net/target-guard.ts";
import type { TargetChoice } from "./route.ts";
import { webhookHeaders } from "./signer.ts";

// Step 3 of a delivery: one signed POST to the target chosen from the account as it is now.

/** How much of a receiver's answer is kept in the attempt log. */
export const SNIPPET_BYTES = 1024;

/** One attempt as it is logged (docs/webhooks.md: status, duration, error, first 1 KiB of the response). */
export type AttemptLog = {
  url: string | null;
  startedAt: number;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  snippet: string | null;
};

export type SendDeps = {
  fetch: typeof fetch;
  resolveHost: Resolver;
  clock: Clock;
  allowPrivateTargets: boolean;
  timeoutMs: number;
  userAgent: string;
  /**
   * Checks already made of URLs, reused while private targets are allowed: the check then needs no
   * DNS and depends on the URL alone. The caller bounds its lifetime (the loop keeps one per pass).
   */
  checkedUrls?: Map<string, TargetCheck>;
};

export type AttemptResult = AttemptLog & { ok: boolean };

/**
 * Makes one attempt: re-checks the target (DNS can have moved since the URL was saved) and POSTs
 * the stored body, signed for this attempt's timestamp, to the address that passed the check
 * (guardedFetch); never follows a redirect, and gives up `timeoutMs` after the attempt began.
 * `previousKey` is given while a rotated-out secret still signs beside `key` (signer.ts).
 * Every failure comes back as a value with a short error class.
 */
export async function attemptDelivery(
  deps: SendDeps,
  d: Pick<Delivery, "id" | "kind" | "body"> & { replay?: number },
  target: TargetChoice,
  key: Uint8Array,
  previousKey: Uint8Array | null = null,
): Promise<AttemptResult> {
  const startedAt = deps.clock.now();
  const t0 = performance.now();
  const done = (url: string | null, statusCode: number | null, error: string | null, snippet: string | null): AttemptResult => ({
    ok: error === null,
    url,
    startedAt,
    durationMs: Math.round(performance.now() - t0),
    statusCode,
    error,
    snippet,
  });
  if (!target.ok) return done(null, null, NO_TARGET_CLASS[target.code], null);

  const headers = webhookHeaders({
    id: d.id,
    body: d.body,
    timestampSec: Math.floor(startedAt / 1000),
    key,
    previousKey,
    userAgent: deps.userAgent,
    test: d.kind === "test",
    replay: d.replay === 1,
  });
  const signal = AbortSignal.timeout(deps.timeoutMs);
  let res: Response;
  try {
    const sent = await guardedFetch(
      { fetch: deps.fetch, resolve: deps.resolveHost, allowPrivate: deps.allowPrivateTargets, checkedUrls: deps.checkedUrls },
      target.url,
      { method: "POST", headers, body: d.body, signal, redirect: "manual" },
    );
    if (!sent.ok) return done(target.url, null, REFUSAL_CLASS[sent.code], null);
    res = sent.response;
  } catch (e) {
    return done(target.url, null, networkErrorClass(e), null);
  }
  // The status arrived in time; the body read shares the same deadline and keeps what it got.
  const snippet = await readSnippet(res);
  if (res.status >= 200 && res.status < 300) return done(target.url, res.status, null, snippet);
  const error = res.status >= 300 && res.status < 400 ? "redirect not followed" : `http ${res.status}`;
  return done(target.url, res.status, error, snippet);
}

const utf8 = new TextDecoder();

/**
 * The first SNIPPET_BYTES of a response body as text; a body that stalls or breaks yields what
 * arrived. A body whose Content-Length fits in the snippet is read whole as text, without the
 * stream objects that cost several microseconds an attempt; if that one breaks off, it yields nothing.
 */
export async function readSnippet(res: Response): Promise<string> {
  // Checked before touching `res.body`, which would build the stream this path avoids.
  const declared = res.headers.get("content-length");
  if (declared !== null && Number(declared) <= SNIPPET_BYTES) {
    try {
      // Decoded as TextDecoder would (UTF-8, invalid bytes replaced, a leading BOM dropped), without the bytes' own copy.
      return await res.text();
    } catch {
      return "";
    }
  }
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let finished = false;
  try {
    while (size < SNIPPET_BYTES) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        break;
      }
      chunks.push(value);
      size += value.length;
    }
  } catch {
    finished = true;
  }
  // Drop the rest instead of downloading an arbitrarily large answer.
  if (!finished) reader.cancel().catch(() => {});
  const all = new Uint8Array(Math.min(size, SNIPPET_BYTES));
  let at = 0;
  for (const c of chunks) {
    const part = c.subarray(0, all.length - at);
    all.set(part, at);
    at += part.length;
    if (at >= all.length) break;
  }
  return utf8.decode(all);
}

/** How a delivery with nowhere to go reads in the attempt log. */
const NO_TARGET_CLASS: Record<Exclude<TargetChoice, { ok: true }>["code"], string> = {
  NO_WEBHOOK_URL: "no webhook URL",
  WEBHOOK_DISABLED: "webhook disabled",
};

/** How a refused target reads in the attempt log. */
const REFUSAL_CLASS: Record<TargetRefusal, string> = {
  PRIVATE_ADDRESS: "private target",
  UNRESOLVABLE: "dns failure",
  NOT_ABSOLUTE_HTTP: "invalid target",
  HAS_CREDENTIALS: "invalid target",
};

/** A short, stable class for a fetch failure, as shown in the attempt log. */
export function networkErrorClass(e: unknown): string {
  const err = e as { name?: string; code?: string; message?: string };
  if (err?.name === "TimeoutError" || err?.name === "AbortError") return "timeout";
  switch (err?.code) {
    case "ECONNREFUSED":
    case "ConnectionRefused":
      return "connection refused";
    case "ECONNRESET":
    case "ConnectionClosed":
      return "connection reset";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "dns failure";
    case "CERT_HAS_EXPIRED":
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
    case "ERR_TLS_CERT_ALTNAME_INVALID":
      return "tls error";
  }
  return `network error: ${String(err?.code ?? err?.message ?? e).slice(0, 200)}`;
}
