import type { FollowerSnapshot, FollowerState } from "./follower-state.ts";

// What a follower knows of itself between polls: the one record its poll updates, which
// `/metrics` (followerGauges) and `follow status` (snapshotOf, written by follower-state.ts) show.

export type FollowerRecord = {
  state: FollowerState;
  /** The node's head at the last look; null before the first. */
  nodeHeight: number | null;
  /** The stored tip at the last look or commit; null before the first. */
  tipHeight: number | null;
  lastError: string | null;
  /** Stopped by a reorg deeper than max_reorg_depth until `follow rewind` asks it to resume. */
  halted: boolean;
};

/** A follower's record before its first poll. */
export function newFollowerRecord(): FollowerRecord {
  return { state: "catching_up", nodeHeight: null, tipHeight: null, lastError: null, halted: false };
}

/** The follower's gauges as a record shows them: node height, stored tip and the lag between them, each once known. */
export function followerGauges(r: FollowerRecord): [name: string, value: number][] {
  const out: [string, number][] = [];
  if (r.nodeHeight !== null) out.push(["chainwatch_follower_node_height", r.nodeHeight]);
  if (r.tipHeight !== null) out.push(["chainwatch_follower_stored_tip", r.tipHeight]);
  if (r.nodeHeight !== null && r.tipHeight !== null) out.push(["chainwatch_follower_lag", Math.max(0, r.nodeHeight - r.tipHeight)]);
  return out;
}

/** Least time between two writes of the record while catching up; every poll's end writes it anyway. */
export const SAVE_EVERY_MS = 1_000;

/** Whether the record is written now: when `force`d (a poll's end, a stop), else a second after the last write. */
export function saveDue(lastSaveMs: number, nowMs: number, force: boolean): boolean {
  return force || nowMs - lastSaveMs >= SAVE_EVERY_MS;
}

/** The row `follow status` reads of a record. */
export function snapshotOf(r: FollowerRecord, about: Pick<FollowerSnapshot, "network" | "upstream" | "blocksPerSecond" | "leader" | "quorumWait">): FollowerSnapshot {
  return {
    network: about.network,
    upstream: about.upstream,
    nodeHeight: r.nodeHeight,
    state: r.state,
    lastError: r.lastError,
    blocksPerSecond: about.blocksPerSecond,
    leader: about.leader,
    quorumWait: about.quorumWait,
  };
}
