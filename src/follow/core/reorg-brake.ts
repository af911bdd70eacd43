import { rfc3339 } from "../../lib/time.ts";

/** The follower holds a network still: too many reorgs within a minute. Shown as its `error`, logged once. */
export class FollowerPaused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FollowerPaused";
  }
}

const MINUTE_MS = 60_000;

/** Bounds the reorgs a follower applies on one network (docs/chains.md). */
export type ReorgBrake = {
  /** Throws FollowerPaused while the brake holds the network; releases it once its minute is over. */
  assertRunning(nowMs: number): void;
  /** Counts a reorg about to be applied; throws FollowerPaused (and holds the network) when it would be one too many. */
  admit(nowMs: number): void;
};

/**
 * At most `maxPerMinute` reorgs in any 60 s (a sliding window; 0 = no limit). The reorg that would
 * exceed it is not applied: the network is held, reading nothing, until the oldest counted reorg
 * is a minute old, so a node whose tip flips every poll costs receivers at most that many rounds
 * of removals and re-deliveries a minute. After the hold, the follower reads the node's chain as
 * it is then, in one reorg however many flips it missed.
 */
export function createReorgBrake(opts: { maxPerMinute: number }): ReorgBrake {
  const applied: number[] = [];
  let heldUntil: number | null = null;
  const paused = () =>
    new FollowerPaused(
      `reorg brake: more than ${opts.maxPerMinute} reorgs within a minute (max_reorgs_per_minute); following paused until ${rfc3339(heldUntil as number)}`,
    );
  return {
    assertRunning(nowMs) {
      if (heldUntil === null) return;
      if (nowMs < heldUntil) throw paused();
      heldUntil = null;
    },
    admit(nowMs) {
      if (opts.maxPerMinute === 0) return;
      while (applied.length > 0 && applied[0] <= nowMs - MINUTE_MS) applied.shift();
      if (applied.length >= opts.maxPerMinute) {
        heldUntil = applied[0] + MINUTE_MS;
        throw paused();
      }
      applied.push(nowMs);
    },
  };
}
