import { Type as T } from "@sinclair/typebox";
import type { Db } from "../db/database.ts";
import type { Failure, InvalidInput, Result } from "../lib/error-codes.ts";
import { checkBody } from "../lib/value-errors.ts";
import { deleteWatch } from "./watches.ts";

/** The body of DELETE /v1/address-watch/addresses (signed like any other). */
export const DeleteWatchSchema = T.Object({ watch_id: T.String({ minLength: 1 }) }, { additionalProperties: false });

export type UnwatchAddressDeps = { db: Db; snapshots: { invalidate(accountId: string): void } };

export type UnwatchAddressResult = Result<{ watchId: string }, InvalidInput | Failure<"WATCH_NOT_FOUND">>;

/** Stops watching, freeing the slot; another account's watch is not found. Its events stay listable. */
export async function unwatchAddress(deps: UnwatchAddressDeps, accountId: string, body: unknown): Promise<UnwatchAddressResult> {
  const checked = checkBody(DeleteWatchSchema, body);
  if (!checked.ok) return checked;
  const watchId = checked.body.watch_id;
  if (!(await deleteWatch(deps.db, accountId, watchId))) return { ok: false, code: "WATCH_NOT_FOUND" };
  deps.snapshots.invalidate(accountId);
  return { ok: true, watchId };
}
