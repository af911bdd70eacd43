import type { Config } from "../../config/schema.ts";
import type { Result, StartupFailure } from "../../lib/error-codes.ts";
import type { Resolver } from "../../net/target-guard.ts";
import { httpScreener } from "./http.ts";
import { loadRiskList, localScreener } from "./local.ts";
import type { Screener } from "./screening.ts";

export type ScreenerResult = Result<{ screener: Screener }, StartupFailure>;

/** Builds the configured provider. `local` loads its risk list now, so a bad file stops start-up. */
export function createScreener(aml: Config["aml"], deps: { fetch?: typeof fetch; resolve?: Resolver } = {}): ScreenerResult {
  if (aml.provider === "http") {
    const { http_url: url, http_timeout_ms: timeoutMs, allow_private_targets: allowPrivate } = aml;
    return { ok: true, screener: httpScreener({ url, timeoutMs, allowPrivate, fetch: deps.fetch, resolve: deps.resolve }) };
  }
  const list = loadRiskList(aml.risk_list);
  if (!list.ok) return list;
  return { ok: true, screener: localScreener(list.list) };
}
