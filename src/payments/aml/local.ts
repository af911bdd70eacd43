import { readFileSync } from "node:fs";
import { Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { type Result, type StartupFailure, startupFailure } from "../../lib/error-codes.ts";
import { describeValueError } from "../../lib/value-errors.ts";
import { cleanResult, riskKey, type Screener, type ScreeningResult, VerdictFields, verdictFrom } from "./screening.ts";

// Extra keys are ignored so lists exported by other tools load as they are.
const RiskEntry = T.Object({ address: T.String({ minLength: 1 }), ...VerdictFields });

const RiskListSchema = T.Array(RiskEntry);

/** Listed addresses by lookup key. */
export type RiskList = ReadonlyMap<string, ScreeningResult>;

/** The list, or why it cannot be used: a bad risk list stops start-up. */
export type RiskListResult = Result<{ list: RiskList }, StartupFailure>;

/** Parses the `aml.risk_list` JSON text (an array of `{address, score, risk_level, …}`); errors name the entry and field. */
export function parseRiskList(text: string): RiskListResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return startupFailure(`not valid JSON: ${(e as Error).message}`);
  }
  const first = Value.Errors(RiskListSchema, raw).First();
  if (first) return startupFailure(describeValueError(first));
  const list = new Map<string, ScreeningResult>();
  for (const e of raw as (typeof RiskEntry.static)[]) {
    list.set(riskKey(e.address), verdictFrom(e));
  }
  return { ok: true, list };
}

/** Reads and parses the risk list file; an empty path means no list (every sender is clean). */
export function loadRiskList(path: string, readText: (path: string) => string = (p) => readFileSync(p, "utf8")): RiskListResult {
  if (path === "") return { ok: true, list: new Map() };
  let text: string;
  try {
    text = readText(path);
  } catch (e) {
    return startupFailure(`config key \`aml.risk_list\`: cannot read ${path}: ${(e as Error).message}`);
  }
  const parsed = parseRiskList(text);
  return parsed.ok ? parsed : startupFailure(`config key \`aml.risk_list\`: ${path}: ${parsed.error}`);
}

/** The `local` provider: looks the sender up in the loaded list; unlisted (or unknown) senders are clean. */
export function localScreener(list: RiskList): Screener {
  return async ({ address }) => {
    const hit = address === null ? undefined : list.get(riskKey(address));
    // Copy, so a stored result never aliases the list's arrays.
    return { ok: true, result: hit ? structuredClone(hit) : cleanResult() };
  };
}
