import type { Config } from "../../config/schema.ts";
import { httpScreener } from "./http.ts";
import { loadRiskList, localScreener } from "./local.ts";
import type { Screener } from "./screening.ts";

export type ScreenerResult = { ok: true; screener: Screener } | { ok: false; error: string };

/** Builds the configured provider. `local` loads its risk list now, so a bad file stops start-up. */
export function createScreener(aml: Config["aml"], deps: { fetch?: typeof fetch } = {}): ScreenerResult {
  if (aml.provider === "http") {
    return { ok: true, screener: httpScreener({ url: aml.http_url, timeoutMs: aml.http_timeout_ms, fetch: deps.fetch }) };
  }
  const list = loadRiskList(aml.risk_list);
  if (!list.ok) return list;
  return { ok: true, screener: localScreener(list.list) };
}
