import type { SharedRateBudget } from "../db/primitives.ts";

// The delivery rate limit of a webhook endpoint (docs/webhooks.md): at most `max_rps`
// deliveries to it in any clock second, in the order the claim meets them. The claim
// asks the throttle where each of an endpoint's next sends goes: into the current second when it
// still has room, else into a later one. A send placed in a later second is not held in memory: its
// row is pushed back to its slot (claim.ts), out of the way of other endpoints' work, and goes out
// when it comes due. So a backlog of any size costs one write per row, once.
//
// The seconds' budgets are the rate limits' own (db/primitives.ts, SharedRateBudget): on
// PostgreSQL a row per key and second in `rate_windows`, so daemons sharing one database never
// place more than `max_rps` sends in one second between them; on SQLite one daemon counts alone.
// Inside a second, this daemon spreads its sends evenly (a slot every 1000 / max_rps ms), so the
// receiver sees a steady rate rather than a burst at the top of each second.

/** Where a throttled endpoint's sends go. */
export type DeliveryThrottle = {
  /**
   * Places the next `n` sends to the endpoint `endpointId` at `maxRps` a second, after every send
   * placed before them: answers their due times in order. Those at or before `nowMs` go at once;
   * the others wait for their slot. `lastSlot` reads the last slot any daemon gave a row of the
   * endpoint still waiting (rate-slots.ts), asked when this daemon does not know the schedule.
   */
  place(endpointId: string, maxRps: number, n: number, nowMs: number, lastSlot: () => Promise<number | null>): Promise<number[]>;
  /** When the next slot after `nowMs` of an endpoint with sends still ahead comes, or null: the loop wakes then. */
  nextSlotAfter(nowMs: number): number | null;
  /** The endpoint's schedule moved on whole (rate-slots.ts, resumeLateSlots) and now ends at `lastDue`: place after it. */
  resume(endpointId: string, maxRps: number, lastDue: number): void;
};

/**
 * What this daemon knows of one endpoint's limit: the second it places in and the next slot of it
 * that it may take, and the last due time it handed out (its sends run until then).
 */
type Lane = { maxRps: number; second: number; slot: number; lastDue: number };

export type ThrottleDeps = {
  /** The shared per-second budgets (PostgreSQL); null when this daemon is the only one (SQLite). */
  budget: SharedRateBudget | null;
  /** How often the budgets of past seconds and idle lanes are dropped (default 10 s). */
  pruneEveryMs?: number;
};

/** The shortest wait between two wake-ups for slots: a limit of thousands a second is served in batches. */
const MIN_WAKE_MS = 5;

/** A lane idle this long is forgotten; a new one reads the schedule from the database again. */
const LANE_IDLE_MS = 3_600_000;

/** The budget key of an endpoint's limit: a new limit starts afresh, not behind what the old one placed. */
const keyOf = (endpointId: string, maxRps: number) => `delivery:${endpointId}:${maxRps}`;

/** Builds the throttle of one daemon. */
export function createDeliveryThrottle(deps: ThrottleDeps): DeliveryThrottle {
  const lanes = new Map<string, Lane>();
  // The lanes with sends still ahead: all nextSlotAfter looks at, after every claim.
  const ahead = new Set<Lane>();
  const pruneEveryMs = deps.pruneEveryMs ?? 10_000;
  let prunedAt = 0;

  /** Takes up to `want` slots of `key`'s `second`; the whole ask when no other daemon shares the limit. */
  const lease = (key: string, second: number, want: number, maxRps: number): Promise<number> | number =>
    deps.budget ? deps.budget.lease(key, second, want, maxRps) : want;

  const prune = (nowMs: number) => {
    if (nowMs - prunedAt < pruneEveryMs && nowMs >= prunedAt) return;
    prunedAt = nowMs;
    for (const [key, lane] of lanes) {
      if (lane.lastDue >= nowMs - LANE_IDLE_MS || lane.second >= Math.floor(nowMs / 1000)) continue;
      lanes.delete(key);
      ahead.delete(lane);
    }
    // The API's limiter prunes the same table; either is enough, and a failure only leaves rows for the next.
    deps.budget?.prune(Math.floor(nowMs / 1000) - 2).catch(() => {});
  };

  /** Moves `lane` to the slot after `last`, when that lies ahead of it (or `always`): true if it moved. */
  const moveAfter = (lane: Lane, last: number, always = false): boolean => {
    const second = Math.floor(last / 1000);
    const slot = Math.floor((last - second * 1000) / (1000 / lane.maxRps)) + 1;
    if (!always && (second < lane.second || (second === lane.second && slot <= lane.slot))) return false;
    lane.second = second;
    lane.slot = slot;
    lane.lastDue = always ? last : Math.max(lane.lastDue, last);
    ahead.add(lane);
    return true;
  };

  /** Moves `lane` past the last slot given to a row still waiting, when that lies ahead of it: true if it moved. */
  const catchUp = async (lane: Lane, lastSlot: () => Promise<number | null>): Promise<boolean> => {
    const last = await lastSlot();
    return last !== null && moveAfter(lane, last);
  };

  const laneOf = (key: string, maxRps: number): Lane => {
    let lane = lanes.get(key);
    if (!lane) {
      if (lanes.size >= 100_000) {
        lanes.clear();
        ahead.clear();
      }
      lanes.set(key, (lane = { maxRps, second: 0, slot: 0, lastDue: 0 }));
    }
    return lane;
  };

  return {
    async place(endpointId, maxRps, n, nowMs, lastSlot) {
      prune(nowMs);
      const key = keyOf(endpointId, maxRps);
      const lane = laneOf(key, maxRps);
      // Asked at most once a call: on a lane this daemon has not used yet (after a restart, say,
      // rows placed before may still wait), and when the budget shows another daemon placing.
      let asked = false;
      const gap = 1000 / maxRps;
      const current = Math.floor(nowMs / 1000);
      if (lane.second < current) {
        lane.second = current;
        lane.slot = 0;
      }
      // Slots of this second that went by unused stay unused: the first send goes now, the next
      // ones a gap apart, never a burst to catch up.
      if (lane.second === current) lane.slot = Math.max(lane.slot, Math.floor((nowMs - current * 1000) / gap));
      if (lane.lastDue === 0) {
        asked = true;
        await catchUp(lane, lastSlot);
      }
      const due: number[] = [];
      while (due.length < n) {
        if (lane.slot >= maxRps) {
          lane.second++;
          lane.slot = 0;
          continue;
        }
        const want = Math.min(n - due.length, maxRps - lane.slot);
        const got = await lease(key, lane.second, want, maxRps);
        for (let i = 0; i < got; i++) due.push(lane.second * 1000 + Math.floor((lane.slot + i) * gap));
        lane.slot += got;
        if (got === want) continue;
        // Other daemons took the rest of this second: go on after their schedule, or the next second.
        if (!asked) {
          asked = true;
          if (await catchUp(lane, lastSlot)) continue;
        }
        lane.second++;
        lane.slot = 0;
      }
      if (n > 0) lane.lastDue = Math.max(lane.lastDue, due[n - 1]);
      if (lane.lastDue > nowMs) ahead.add(lane);
      return due;
    },
    resume(endpointId, maxRps, lastDue) {
      moveAfter(laneOf(keyOf(endpointId, maxRps), maxRps), lastDue, true);
    },
    nextSlotAfter(nowMs) {
      let next: number | null = null;
      for (const lane of ahead) {
        if (lane.lastDue < nowMs) {
          ahead.delete(lane);
          continue;
        }
        // The next slot (from now on) of the evenly spaced grid every daemon places on: a send of
        // this daemon, of another, or none; waking for none costs one empty claim.
        const gap = 1000 / lane.maxRps;
        const second = Math.floor(nowMs / 1000);
        const slot = Math.ceil((nowMs - second * 1000) / gap);
        const at = Math.min(lane.lastDue, slot >= lane.maxRps ? (second + 1) * 1000 : second * 1000 + Math.floor(slot * gap));
        // A row waiting for its slot is claimable once the slot is past (its lease ends then). Slots
        // closer together than MIN_WAKE_MS are served a few at a time.
        const wake = gap < MIN_WAKE_MS ? Math.min(lane.lastDue + 1, nowMs + MIN_WAKE_MS) : at + 1;
        if (next === null || wake < next) next = wake;
      }
      return next;
    },
  };
}
