import type { Executor } from "../db/database.ts";
import type { AttemptLog } from "./send.ts";

// What the delivery loop reports to the owner of the webhook endpoints (webhooks/, handed in by
// the composition root as an EndpointOutcomes): the engine sends, the owner keeps each endpoint's
// health and switches off one that has failed too long. The loop writes no endpoint table.

/** A settled attempt that went to a webhook endpoint's URL (a payments URL is no endpoint). */
export type EndpointAttempt = { endpointId: string; accountId: string; attempt: Pick<AttemptLog, "url" | "startedAt" | "statusCode" | "error"> };

/** An endpoint failing for at least `delivery.disable_after_hours` and not yet switched off by that run. */
export type FailingEndpoint = {
  endpointId: string;
  accountId: string;
  url: string;
  failingSince: number;
  lastStatusCode: number | null;
  lastError: string;
};

export type EndpointOutcomes = {
  /**
   * Folds a batch of settled attempts into the endpoints' health, in the settlement's transaction;
   * returns those failing long enough to be switched off.
   */
  record(trx: Executor, attempts: readonly EndpointAttempt[], nowMs: number): Promise<FailingEndpoint[]>;
  /** Switches those off, once the settlement has committed (each in a short transaction of its own). */
  switchOff(endpoints: readonly FailingEndpoint[], nowMs: number): Promise<void>;
};
