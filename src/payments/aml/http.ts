import { Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { Explained } from "../../lib/error-codes.ts";
import { describeValueError } from "../../lib/value-errors.ts";
import { guardedFetch } from "../../net/guarded-fetch.ts";
import { type Resolver, refusalReason, systemResolver } from "../../net/target-guard.ts";
import { type Screener, VerdictFields, verdictFrom } from "./screening.ts";

const ProviderAnswer = T.Object(VerdictFields);

// Enough of a body to diagnose a provider failure in last_error without storing a page of HTML.
const ERROR_SNIPPET = 200;

export type HttpScreenerOptions = {
  url: string;
  timeoutMs: number;
  /** `aml.allow_private_targets`: whether the URL may lead to a loopback, private or link-local address. */
  allowPrivate: boolean;
  fetch?: typeof fetch;
  resolve?: Resolver;
};

/**
 * The `http` provider: POSTs `{network, address, tx_hash}` as JSON to `url`, through the same
 * target guard as webhooks (resolved once per call, sent to the checked address). A refused
 * target, a non-2xx answer, a timeout, a network error or a body without a valid `risk_level` is
 * a failure the worker retries.
 */
export function httpScreener(opts: HttpScreenerOptions): Screener {
  const net = { fetch: opts.fetch ?? fetch, resolve: opts.resolve ?? systemResolver, allowPrivate: opts.allowPrivate };
  return async ({ network, address, txHash }) => {
    let res: Response;
    let text: string;
    try {
      const sent = await guardedFetch(net, opts.url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ network, address, tx_hash: txHash }),
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
      if (!sent.ok) return unavailable(refusalReason(sent.code, "aml.http_url"));
      res = sent.response;
      text = await res.text();
    } catch (e) {
      const name = (e as Error).name;
      const error = name === "TimeoutError" || name === "AbortError" ? `timed out after ${opts.timeoutMs} ms` : String(e);
      return unavailable(error);
    }
    if (res.status < 200 || res.status > 299) return unavailable(`HTTP ${res.status}: ${text.slice(0, ERROR_SNIPPET)}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return unavailable(`answer is not JSON: ${text.slice(0, ERROR_SNIPPET)}`);
    }
    const first = Value.Errors(ProviderAnswer, body).First();
    if (first) return unavailable(`bad answer: ${describeValueError(first)}`);
    return { ok: true, result: verdictFrom(body as typeof ProviderAnswer.static) };
  };
}

/** A provider that gave no verdict, and why (kept as the job's last_error). */
function unavailable(error: string): Explained<"AML_UNAVAILABLE"> {
  return { ok: false, code: "AML_UNAVAILABLE", error };
}
