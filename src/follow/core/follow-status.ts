import type { Config } from "../../config/schema.ts";
import type { Db } from "../../db/database.ts";
import { rfc3339 } from "../../lib/time.ts";
import { upstreamLabel } from "../../upstream/pool.ts";
import { storedTip } from "./chain-store.ts";
import { type FollowerState, followerStates } from "./follower-state.ts";

/** One line of `chainwatch follow status` (docs/chains.md). */
export type FollowStatus = {
  network: string;
  upstream: string | null;
  node_height: number | null;
  stored_tip: number | null;
  lag: number | null;
  state: FollowerState;
  last_error: string | null;
  blocks_per_second: number;
  /** The daemon following the network now (`host:port pid N`); null when none is. */
  leader: string | null;
  /** Confirmations waiting for the upstream quorum (docs/chains.md): since when, for which height; null while none waits. */
  quorum: { waiting_since: string; height: number } | null;
};

// A running daemon writes each follower's row at least once per poll (and each second while
// catching up); a row older than this means no daemon is following the network now.
const STALE_FLOOR_MS = 10_000;

/**
 * The followers as the daemon last reported them, with the stored tip read now. `follow status`
 * runs in another process than `serve`: the daemon writes `follower_state` on every poll, and a
 * row that stopped changing is shown as `stopped`.
 */
export async function followStatus(db: Db, config: Config, nowMs: number): Promise<FollowStatus[]> {
  const rows = await followerStates(db);
  const out: FollowStatus[] = [];
  for (const [network, n] of Object.entries(config.networks)) {
    if (!n.follow) continue;
    const row = rows.get(network);
    const tip = (await storedTip(db, network))?.height ?? null;
    const nodeHeight = row?.node_height === null || row?.node_height === undefined ? null : Number(row.node_height);
    const stale = !row || nowMs - row.updated_at > Math.max(STALE_FLOOR_MS, 3 * n.poll_interval_ms);
    let state = (row?.state ?? "stopped") as FollowerState;
    let lastError = row?.last_error ?? null;
    if (row && stale && state !== "stopped") {
      state = "stopped";
      lastError ??= `no report from a running daemon since ${rfc3339(row.updated_at)}`;
    }
    out.push({
      network,
      upstream: row?.upstream ?? (n.rpc_urls[0] ? upstreamLabel(n.rpc_urls[0]) : null),
      node_height: nodeHeight,
      stored_tip: tip,
      lag: nodeHeight !== null && tip !== null ? Math.max(0, nodeHeight - tip) : null,
      state,
      last_error: lastError,
      blocks_per_second: state === "stopped" ? 0 : (row?.blocks_per_second ?? 0),
      leader: state === "stopped" ? null : (row?.leader ?? null),
      quorum:
        row?.quorum_waiting_since === null || row?.quorum_waiting_since === undefined
          ? null
          : { waiting_since: rfc3339(Number(row.quorum_waiting_since)), height: Number(row.quorum_height) },
    });
  }
  return out;
}
