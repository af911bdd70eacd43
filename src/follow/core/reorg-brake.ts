import type { Explained, Result } from "../../lib/error-codes.ts";
import { rfc3339 } from "../../lib/time.ts";

/** The follower holds a network still: too many reorgs within a minute. Shown as its `error`, logged once. */
export type BrakeHeld = Explained<"FOLLOWER_PAUSED">;

const MINUTE_MS = 60_000;

/** Bounds the reorgs a follower applies on one network (docs/chains.md). */
export type ReorgBrake = {
  /** Fails while the brake holds the network; releases it once its minute is over. */
  check(nowMs: number): Result<object, BrakeHeld>;
  /** Counts a reorg about to be applied; fails (and holds the network) when it would be one too many. */
  admit(nowMs: number): Result<object, BrakeHeld>;
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
  const paused = (): BrakeHeld => ({
    ok: false,
    code: "FOLLOWER_PAUSED",
    error: `reorg brake: more than ${opts.maxPerMinute} reorgs within a minute (max_reorgs_per_minute); following paused until ${rfc3339(heldUntil as number)}`,
  });
  return {
    check(nowMs) {
      if (heldUntil === null) return { ok: true };
      if (nowMs < heldUntil) return paused();
      heldUntil = null;
      return { ok: true };
    },
    admit(nowMs) {
      if (opts.maxPerMinute === 0) return { ok: true };
      while (applied.length > 0 && applied[0] <= nowMs - MINUTE_MS) applied.shift();
      if (applied.length >= opts.maxPerMinute) {
        heldUntil = applied[0] + MINUTE_MS;
        return paused();
      }
      applied.push(nowMs);
      return { ok: true };
    },
  };
}
