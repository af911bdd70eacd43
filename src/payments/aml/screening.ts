import { type Static, type TObject, Type as T } from "@sinclair/typebox";
import type { RiskLevel } from "../lifecycle.ts";
import type { Explained, Result } from "../../lib/error-codes.ts";

/**
 * The verdict fields as a provider answer or a risk-list entry may carry them: risk_level is all
 * that is needed to decide, the rest defaults like a clean result. Unknown keys (a provider's
 * name, report URLs) are accepted but never copied into a result.
 */
export const VerdictFields = {
  risk_level: T.Union([T.Literal("low"), T.Literal("medium"), T.Literal("high"), T.Literal("severe")]),
  score: T.Optional(T.Number()),
  hacking_event: T.Optional(T.String()),
  address_label: T.Optional(T.String()),
  detail_list: T.Optional(T.Array(T.Unknown())),
  risk_detail: T.Optional(T.Array(T.Unknown())),
};

/** What is screened: the sender of the transaction that completed an order. */
export type ScreeningRequest = {
  network: string;
  /** The sender's address; null when the feed named no sender (e.g. a coinbase or mint). */
  address: string | null;
  txHash: string | null;
};

/** A screening verdict without a timestamp; the worker stamps `checked_at` when it stores it. */
export type ScreeningResult = {
  score: number;
  risk_level: RiskLevel;
  hacking_event: string;
  detail_list: unknown[];
  risk_detail: unknown[];
  address_label: string;
};

/** The AML object stored on an order and sent with `paid`/`failed`: no provider name, no report URL. */
export type StoredAml = ScreeningResult & { checked_at: string };

/** A provider's answer: a verdict, or why it gave none (retried later). */
export type ScreeningOutcome = Result<{ result: ScreeningResult }, Explained<"AML_UNAVAILABLE">>;

/** Screens one sender. Never throws: a provider failure comes back as AML_UNAVAILABLE with the reason. */
export type Screener = (request: ScreeningRequest) => Promise<ScreeningOutcome>;

/** The verdict for an address no risk source knows: score 0, `low`, empty strings and lists. */
export function cleanResult(): ScreeningResult {
  return { score: 0, risk_level: "low", hacking_event: "", detail_list: [], risk_detail: [], address_label: "" };
}

/** A full verdict from the fields a provider or a risk list gave: what is missing reads as clean. */
export function verdictFrom(v: Static<TObject<typeof VerdictFields>>): ScreeningResult {
  const base = cleanResult();
  return {
    score: v.score ?? base.score,
    risk_level: v.risk_level,
    hacking_event: v.hacking_event ?? base.hacking_event,
    detail_list: v.detail_list ?? base.detail_list,
    risk_detail: v.risk_detail ?? base.risk_detail,
    address_label: v.address_label ?? base.address_label,
  };
}

/** The key an address is looked up by: hex (EVM-style) addresses compare case-insensitively, others exactly. */
export function riskKey(address: string): string {
  return /^0x[0-9a-fA-F]+$/.test(address) ? address.toLowerCase() : address;
}
