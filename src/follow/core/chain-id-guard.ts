import type { Logger } from "../../lib/log.ts";
import type { SendOptions, UpstreamPool, UpstreamReply } from "../../upstream/pool.ts";
import { MalformedUpstreamData } from "./upstream-data.ts";

/**
 * An upstream answers for another chain than the follower follows; nothing it sent is used. Thrown
 * from inside the pool's `send`, where a reply can only say that no upstream answered, to the
 * follower's poll loop like any reader failure (upstream-data.ts).
 */
export class ChainIdMismatch extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChainIdMismatch";
  }
}

/** An upstream pool whose answers all come from upstreams on the expected chain. */
export type ChainCheckedPool = UpstreamPool & {
  /** Checks each upstream's chain id again before its next answer is used. */
  recheck(): void;
};

/** How the guard asks an upstream which chain it is on: one request, sent through the pool like any other. */
export type ChainProbe = {
  /** The question as the guard's messages name it (`eth_chainId`). */
  name: string;
  body: string;
  options?: SendOptions;
  /** The chain id in a node's answer; null when the answer holds none. */
  idOf(answer: unknown): number | null;
  /** Whether the answer says the node does not serve the question (then followed only when no chain id is configured). */
  unsupported(answer: unknown): boolean;
};

// Rounds of "answer came from an upstream not checked yet, check, ask again" before giving up on a
// call: the pool's choice only moves when an upstream fails or recovers in between.
const MAX_ROUNDS = 3;

/**
 * The follower's view of a network's upstream pool: no answer is handed on before the chain id
 * (`probe`: the family's question, evm/reader.ts and tron/reader.ts) of the upstream that gave it
 * was checked — when that upstream answers for the first time, and again after it failed (a reconnect: the pool failed over to it, or it came back from backoff,
 * perhaps as another node behind the same URL). The id must be `[networks.X] chain_id`, or, when
 * none is configured, the id the first upstream answered (so a failover to another chain is still
 * refused). A mismatch throws ChainIdMismatch naming both ids; the call is not answered.
 * `recheck()` forgets every check, for when the chain seems to have changed under the follower.
 * The pool itself (shared with /rpc) is untouched; which upstream answered comes from its reply,
 * and failures from its per-upstream error counts.
 */
export function chainCheckedPool(pool: UpstreamPool, opts: { network: string; chainId: number | null; log: Logger; probe: ChainProbe }): ChainCheckedPool {
  const { probe } = opts;
  let expected = opts.chainId;
  /** Upstream label → its error count when its chain id was last found right. */
  const checked = new Map<string, number>();
  const errorsOf = (label: string) => pool.states().reduce((n, s) => (s.label === label ? n + s.errors : n), 0);
  const isChecked = (label: string) => checked.get(label) === errorsOf(label);

  /** Asks the pool for the chain id and records the upstream that answered; a failed reply when none did. */
  const check = async (): Promise<UpstreamReply | null> => {
    const reply = await pool.send(probe.body, probe.options);
    if (!reply.ok) return reply;
    const id = probe.idOf(reply.json);
    if (id === null) {
      // A node without the question can still be followed when nothing pins the chain.
      if (expected === null && probe.unsupported(reply.json)) {
        checked.set(reply.upstream, errorsOf(reply.upstream));
        return null;
      }
      throw new MalformedUpstreamData(`upstream ${reply.upstream} did not answer ${probe.name} with a chain id, so the chain it follows is unknown`);
    }
    if (expected === null) {
      expected = id;
      opts.log.info("follower chain id", { network: opts.network, chain_id: id, upstream: reply.upstream });
    }
    if (id !== expected) {
      const source = opts.chainId === null ? "the chain id the follower started on" : `[networks.${opts.network}] chain_id`;
      throw new ChainIdMismatch(`upstream ${reply.upstream} is on chain id ${id}, not ${expected} (${source}); nothing it sends is stored`);
    }
    checked.set(reply.upstream, errorsOf(reply.upstream));
    return null;
  };

  return {
    ...pool,
    async send(body, options) {
      for (let round = 1; ; round++) {
        const reply = await pool.send(body, options);
        if (!reply.ok || isChecked(reply.upstream)) return reply;
        const failed = await check();
        if (failed) return failed;
        if (isChecked(reply.upstream)) return reply;
        // The check reached another upstream than the answer came from: ask again.
        if (round >= MAX_ROUNDS) return { ok: false, code: "UPSTREAM_UNAVAILABLE", error: `the chain id of upstream ${reply.upstream} could not be checked` };
      }
    },
    recheck: () => checked.clear(),
  };
}
