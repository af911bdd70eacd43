import type { Db } from "../db/database.ts";
import type { Account } from "../db/schema.ts";
import { resumePausedDeliveries } from "../delivery/outbox.ts";
import type { Clock } from "../lib/clock.ts";
import type { Result } from "../lib/error-codes.ts";

// An operator's switch on a whole account (docs/operations.md). Disabled, its API keys and /rpc
// are refused (auth/key-store.ts reads the state with the key, so every daemon sees it within the
// key cache's second), its cabinet signs nothing in and shows nothing (cabinet/sessions.ts), and
// its deliveries wait `paused` (delivery/claim.ts); its followers, watches and events go on, so
// nothing it would have been told is lost while it is off.

/** Whether the switch changed anything: disabling a disabled account (or enabling an enabled one) is a no-op. */
export type AccountStateResult = Result<{ account: Account; changed: boolean }>;

/** Disables an account from now on; an account already disabled keeps the time it was disabled at. */
export async function disableAccount(db: Db, clock: Clock, accountId: string): Promise<AccountStateResult> {
  const now = clock.now();
  const updated = await db
    .updateTable("accounts")
    .set({ disabled_at: now, updated_at: now })
    .where("id", "=", accountId)
    .where("disabled_at", "is", null)
    .executeTakeFirst();
  const account = await db.selectFrom("accounts").selectAll().where("id", "=", accountId).executeTakeFirstOrThrow();
  return { ok: true, account, changed: Number(updated.numUpdatedRows) > 0 };
}

/**
 * Enables an account and, in the same transaction, resumes its paused deliveries as adding credits
 * does: what waited while it was disabled goes out on the next claim (and waits again, paused for
 * credits, if the balance cannot pay for it).
 */
export async function enableAccount(db: Db, clock: Clock, accountId: string): Promise<AccountStateResult> {
  const now = clock.now();
  return db.transaction().execute(async (trx): Promise<AccountStateResult> => {
    const updated = await trx
      .updateTable("accounts")
      .set({ disabled_at: null, updated_at: now })
      .where("id", "=", accountId)
      .where("disabled_at", "is not", null)
      .executeTakeFirst();
    const changed = Number(updated.numUpdatedRows) > 0;
    if (changed) await resumePausedDeliveries(trx, [accountId], now);
    const account = await trx.selectFrom("accounts").selectAll().where("id", "=", accountId).executeTakeFirstOrThrow();
    return { ok: true, account, changed };
  });
}
