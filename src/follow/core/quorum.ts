import type { Db } from "../../db/database.ts";
import { heightToAgree, raiseQuorumNotices, resolveQuorumNotices } from "../../ingest/quorum-heights.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Logger } from "../../lib/log.ts";
import { rfc3339 } from "../../lib/time.ts";
import { storedBlockFrom } from "./chain-store.ts";

// Upstream quorum (docs/chains.md): on a network with `quorum` = N > 1, the follower reads from
// one upstream, and before what a block holds counts as confirmed, N upstreams, the reading one
// included, must return the block hash stored at the height where it confirms. The upstreams are
// asked only when something waits for that height (an order's transfer at confirmation depth, a
// delivery held for min_confirmations, a late payment: ingest/quorum-heights.ts), and every
// answer naming a block is kept, so a quorum costs N − 1 calls per confirming height, not per
// block. Until N agree, nothing confirms; when N other upstreams agree on another hash, the
// follower moves to one of them and its next poll walks back over the block it read, through the
// normal reorg path.

/** One upstream as the quorum asks it: its label (no credentials) and its block hash at a height. */
export type QuorumUpstream = { label: string; hashAt(height: number): Promise<string | null> };

export type QuorumDeps = {
  network: string;
  /** `quorum`: upstreams that must return the stored hash, the reading one included. */
  size: number;
  /** `quorum_timeout_seconds`, in ms. */
  timeoutMs: number;
  /** The network's `confirmations`. */
  confirmations: number;
  /** Every upstream in configured order; each answers on its own, with no failover. */
  upstreams: QuorumUpstream[];
  /** The index of the upstream the follower reads from now. */
  readingIndex(): number;
  /** Makes the follower read from the upstream at `index`. */
  readFrom(index: number): void;
  /** Raises the quorum height once the upstreams agree (the ingest's confirmQuorum); false when the block was replaced meanwhile. */
  confirm(height: number, hash: string): Promise<boolean>;
  db: Db;
  clock: Clock;
  log: Logger;
};

/** What waits for the quorum: since when, at which height, who disagreed or did not answer at the last look. */
export type QuorumWait = { since: number; height: number; disagreeing: string[] };

export type Quorum = {
  /**
   * Asks the upstreams about the height where something waiting confirms (at or below the stored
   * tip `tip`) and confirms it when N agree: `idle` when nothing waits, `agreed`, `waiting`, or
   * `switched` when N others agreed on another block and the follower now reads from one of them.
   */
  check(tip: number): Promise<"idle" | "agreed" | "waiting" | "switched">;
  /** What waits now, or null. */
  waiting(): QuorumWait | null;
};

export function createQuorum(deps: QuorumDeps): Quorum {
  const { network, size, upstreams, clock, log } = deps;
  /** Answers naming a block, per height asked: a block hash at a height does not change for an upstream that keeps its chain. */
  const answers = new Map<number, Map<number, string>>();
  let wait: QuorumWait | null = null;
  let told: string[] | null = null;

  const answerOf = async (index: number, height: number): Promise<string | null> => {
    const known = answers.get(height)?.get(index);
    if (known !== undefined) return known;
    // An upstream that fails or has no block there is asked again at the next poll.
    const hash = await upstreams[index].hashAt(height).catch(() => null);
    if (hash !== null) {
      const at = answers.get(height) ?? new Map<number, string>();
      at.set(index, hash.toLowerCase());
      answers.set(height, at);
    }
    return hash?.toLowerCase() ?? null;
  };

  /** Forgets answers below `height`: nothing is asked below the quorum height again. */
  const forgetBelow = (height: number) => {
    for (const h of answers.keys()) if (h < height) answers.delete(h);
  };

  const agreed = async (height: number) => {
    forgetBelow(height + 1);
    if (wait) log.info("upstream quorum reached", { network, height, waited_seconds: Math.round((clock.now() - wait.since) / 1000) });
    wait = null;
    if (told) await resolveQuorumNotices(deps.db, told, clock.now());
    told = null;
  };

  const waitingAt = async (height: number, disagreeing: string[]) => {
    const now = clock.now();
    wait = { since: wait?.since ?? now, height, disagreeing };
    if (told || now - wait.since < deps.timeoutMs) return;
    // Once per wait: the notice and the log line name the upstreams, never their credentials.
    const message = `Confirmations on ${network} have waited since ${rfc3339(wait.since)} for ${size} upstreams to agree on block ${height}; not agreeing: ${disagreeing.join(", ")}.`;
    told = await raiseQuorumNotices(deps.db, network, message, now);
    log.warn("upstream quorum not reached", { network, height, waiting_since: rfc3339(wait.since), quorum: size, disagreeing });
  };

  return {
    async check(tip) {
      const due = await heightToAgree(deps.db, network, deps.confirmations, tip);
      if (due === null) {
        if (wait) await agreed(tip);
        return "idle";
      }
      // The block stored at that height or, when a wait longer than retention keeps blocks
      // (ingest/retention.ts) lost it, the lowest one stored above: agreement there covers it (a
      // block hash names every block below), and a block that old every upstream has.
      const block = await storedBlockFrom(deps.db, network, due);
      if (block === null || block.height > tip) return "idle";
      const { height, hash: stored } = block;
      const reading = deps.readingIndex();
      // The stored block is the reading upstream's answer.
      let agreeing = 1;
      const others = new Map<string, number[]>();
      const disagreeing: string[] = [];
      for (let i = 0; i < upstreams.length && agreeing < size; i++) {
        if (i === reading) continue;
        const hash = await answerOf(i, height);
        if (hash === stored) agreeing += 1;
        else {
          disagreeing.push(hash === null ? `${upstreams[i].label} (no answer)` : upstreams[i].label);
          if (hash !== null) others.set(hash, [...(others.get(hash) ?? []), i]);
        }
      }
      if (agreeing >= size) {
        if (await deps.confirm(height, stored)) {
          await agreed(height);
          return "agreed";
        }
        return "waiting";
      }
      const outvoted = [...others.values()].find((indexes) => indexes.length >= size);
      if (outvoted) {
        log.warn("upstream quorum agrees on another block: following one of its upstreams", {
          network,
          height,
          left: upstreams[reading]?.label,
          following: upstreams[outvoted[0]].label,
        });
        deps.readFrom(outvoted[0]);
        answers.delete(height);
        await waitingAt(height, disagreeing);
        return "switched";
      }
      await waitingAt(height, disagreeing);
      return "waiting";
    },
    waiting: () => wait,
  };
}
