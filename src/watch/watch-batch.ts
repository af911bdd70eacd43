import { Type as T } from "@sinclair/typebox";
import type { Failure, InvalidInput, Result } from "../lib/error-codes.ts";
import { checkBody } from "../lib/value-errors.ts";
import { AddWatchSchema, type WatchAddressDeps, watchTarget } from "./watch-address.ts";
import type { UnwatchAddressDeps } from "./unwatch-address.ts";
import { addWatches, deleteWatches, type WatchView, watchView } from "./watches.ts";

// Batch watch and unwatch (docs/api.md): up to MAX_BATCH items a call, each answered as the single
// route would answer it, in order.

/** The most items one batch call takes. */
export const MAX_BATCH = 1000;

/** The body of POST /v1/address-watch/addresses/batch: each item as the single add's body. */
export const AddWatchBatchSchema = T.Object(
  { addresses: T.Array(AddWatchSchema, { minItems: 1, maxItems: MAX_BATCH }) },
  { additionalProperties: false },
);

/** The body of DELETE /v1/address-watch/addresses/batch. */
export const DeleteWatchBatchSchema = T.Object(
  { watch_ids: T.Array(T.String({ minLength: 1 }), { minItems: 1, maxItems: MAX_BATCH }) },
  { additionalProperties: false },
);

/** One item's answer: the single add's record (`created: false` when it was watched already), or why it was refused. */
export type AddItemOutcome = Result<{ created: boolean; watch: WatchView }, InvalidInput | Failure<"SLOT_LIMIT">>;

/** One item's answer: the id deleted, or not found (another account's, unknown, or deleted earlier in the batch). */
export type DeleteItemOutcome = Result<{ watchId: string }, Failure<"WATCH_NOT_FOUND">>;

/**
 * Watches every address of the batch for an account, in order. The body's shape is checked
 * whole (a malformed item refuses the call, nothing written); each item's network and address
 * are then checked as the single route checks them, and the valid ones added in one go, slots
 * taken item by item (watches.ts addWatches).
 */
export async function watchAddresses(deps: WatchAddressDeps, accountId: string, body: unknown): Promise<Result<{ results: AddItemOutcome[] }, InvalidInput>> {
  const checked = checkBody(AddWatchBatchSchema, body);
  if (!checked.ok) return checked;
  const targets = checked.body.addresses.map((item) => watchTarget(deps.config.networks, item));
  const valid = targets.flatMap((t) => (t.ok ? [{ network: t.network, address: t.address }] : []));
  const added = valid.length === 0 ? [] : await addWatches(deps.db, { accountId, items: valid, now: deps.clock.now() });
  if (added.some((a) => a.ok && a.created)) deps.snapshots.invalidate(accountId);
  let next = 0;
  const results = targets.map((t): AddItemOutcome => {
    if (!t.ok) return t;
    const outcome = added[next++] as (typeof added)[number];
    return outcome.ok ? { ok: true, created: outcome.created, watch: watchView(outcome.watch) } : outcome;
  });
  return { ok: true, results };
}

/** Stops watching every id of the batch, in order, as the single route would one by one. */
export async function unwatchAddresses(deps: UnwatchAddressDeps, accountId: string, body: unknown): Promise<Result<{ results: DeleteItemOutcome[] }, InvalidInput>> {
  const checked = checkBody(DeleteWatchBatchSchema, body);
  if (!checked.ok) return checked;
  const ids = checked.body.watch_ids;
  const deleted = await deleteWatches(deps.db, accountId, ids);
  if (deleted.some(Boolean)) deps.snapshots.invalidate(accountId);
  return { ok: true, results: ids.map((watchId, i): DeleteItemOutcome => (deleted[i] ? { ok: true, watchId } : { ok: false, code: "WATCH_NOT_FOUND" })) };
}
