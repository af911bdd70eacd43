import type { Executor } from "../../db/database.ts";
import type { FollowerStateTable } from "../../db/schema.ts";

/** What `follow status` shows of a follower. */
export type FollowerState = "following" | "catching_up" | "stopped" | "error";

export type FollowerSnapshot = {
  network: string;
  upstream: string | null;
  nodeHeight: number | null;
  state: FollowerState;
  lastError: string | null;
  blocksPerSecond: number;
  /** The daemon that leads the follower and writes this row (several daemons on one database). */
  leader?: string | null;
  /** What waits for the upstream quorum (quorum.ts): since when, at which height; null while nothing does. */
  quorumWait?: { since: number; height: number } | null;
};

/**
 * Records what the daemon's follower of a network sees now; leaves `resume_requested` alone. Only
 * the daemon leading the network's follower calls it: the one row per network is the leader's.
 */
export async function saveFollowerState(db: Executor, s: FollowerSnapshot, nowMs: number): Promise<void> {
  const row = {
    upstream: s.upstream,
    node_height: s.nodeHeight,
    state: s.state,
    last_error: s.lastError,
    blocks_per_second: s.blocksPerSecond,
    updated_at: nowMs,
    leader: s.leader ?? null,
    quorum_waiting_since: s.quorumWait?.since ?? null,
    quorum_height: s.quorumWait?.height ?? null,
  };
  await db
    .insertInto("follower_state")
    .values({ network: s.network, ...row, resume_requested: 0 })
    .onConflict((oc) => oc.column("network").doUpdateSet(row))
    .execute();
}

/** Every follower row, by network. */
export async function followerStates(db: Executor): Promise<Map<string, FollowerStateTable>> {
  const rows = await db.selectFrom("follower_state").selectAll().execute();
  return new Map(rows.map((r) => [r.network, r]));
}

/** Asks a follower stopped by a deep reorg to start again (after `follow rewind`). */
export async function requestResume(db: Executor, network: string, nowMs: number): Promise<void> {
  await db
    .insertInto("follower_state")
    .values({ network, upstream: null, node_height: null, state: "stopped", last_error: null, blocks_per_second: 0, resume_requested: 1, updated_at: nowMs })
    .onConflict((oc) => oc.column("network").doUpdateSet({ resume_requested: 1 }))
    .execute();
}

/** True once, after `follow rewind` asked for it: the flag is cleared as it is read. */
export async function takeResumeRequest(db: Executor, network: string): Promise<boolean> {
  const result = await db.updateTable("follower_state").set({ resume_requested: 0 }).where("network", "=", network).where("resume_requested", "=", 1).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
