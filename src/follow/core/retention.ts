import type { Db } from "../../db/database.ts";
import { TOKEN_DECIMALS_TTL_MS } from "./token-decimals.ts";

/**
 * The followers' per-network bookkeeping past its use: the `follower_state` rows and learned token
 * decimals of networks no longer configured, and token decimals learned more than 90 days ago (a
 * contract seen again is asked again, once). The retention worker's step for `follow/`.
 */
export async function pruneFollowerBookkeeping(
  db: Db,
  nowMs: number,
  configuredNetworks: readonly string[],
): Promise<{ followerStates: number; tokenDecimals: number }> {
  const elsewhere = configuredNetworks.length > 0 ? configuredNetworks : ["\u0000none"];
  const states = await db.deleteFrom("follower_state").where("network", "not in", elsewhere).executeTakeFirst();
  const decimals = await db
    .deleteFrom("token_decimals")
    .where((eb) => eb.or([eb("network", "not in", elsewhere), eb("created_at", "<", nowMs - TOKEN_DECIMALS_TTL_MS)]))
    .executeTakeFirst();
  return { followerStates: Number(states.numDeletedRows), tokenDecimals: Number(decimals.numDeletedRows) };
}
