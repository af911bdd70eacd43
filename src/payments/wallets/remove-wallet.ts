import type { Db } from "../../db/database.ts";
import { lockAccount } from "../../db/primitives.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Failure, Result } from "../../lib/error-codes.ts";
import { activeWallet } from "./wallets.ts";

/**
 * DELETE /v1/payments/wallets/{network}: orders stop taking addresses from the wallet. Orders made
 * already keep their addresses, still watched for late payments; the wallet is kept (inactive), so
 * the same key put back resumes after its last index instead of handing any out again.
 */
export async function removeWallet(deps: { db: Db; clock: Clock }, accountId: string, network: string): Promise<Result<{ network: string; deleted: true }, Failure<"WALLET_NOT_FOUND">>> {
  return deps.db.transaction().execute(async (trx) => {
    await lockAccount(trx, accountId);
    const wallet = await activeWallet(trx, accountId, network);
    if (!wallet) return { ok: false as const, code: "WALLET_NOT_FOUND" as const };
    await trx.updateTable("payment_wallets").set({ active: 0, updated_at: deps.clock.now() }).where("id", "=", wallet.id).execute();
    return { ok: true as const, network, deleted: true as const };
  });
}
