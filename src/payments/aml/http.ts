import { Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { describeValueError } from "../../lib/value-errors.ts";
import { type Screener, VerdictFields, verdictFrom } from "./screening.ts";

const ProviderAnswer = T.Object(VerdictFields);

// Enough of a body to diagnose a provider failure in last_error without storing a page of HTML.
const ERROR_SNIPPET = 200;

/**
 * The `http` provider: POSTs `{network, address, tx_hash}` as JSON to `url`. A non-2xx answer,
 * a timeout, a network error or a body without a valid `risk_level` is a failure the worker retries.
 */
export function httpScreener(opts: { url: string; timeoutMs: number; fetch?: typeof fetch }): Screener {
  const doFetch = opts.fetch ?? fetch;
  return async ({ network, address, txHash }) => {
    let res: Response;
    let text: string;
    try {
      res = await doFetch(opts.url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ network, address, tx_hash: txHash }),
        redirect: "manual",
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
      text = await res.text();
    } catch (e) {
      const name = (e as Error).name;
      const error = name === "TimeoutError" || name === "AbortError" ? `timed out after ${opts.timeoutMs} ms` : String(e);
      return { ok: false, error };
    }
    if (res.status < 200 || res.status > 299) return { ok: false, error: `HTTP ${res.status}: ${text.slice(0, ERROR_SNIPPET)}` };
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { ok: false, error: `answer is not JSON: ${text.slice(0, ERROR_SNIPPET)}` };
    }
    const first = Value.Errors(ProviderAnswer, body).First();
    if (first) return { ok: false, error: `bad answer: ${describeValueError(first)}` };
    return { ok: true, result: verdictFrom(body as typeof ProviderAnswer.static) };
  };
}
