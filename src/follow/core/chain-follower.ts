import { DEFAULT_MAX_RESPONSE_BYTES, type NetworkConfig } from "../../config/schema.ts";
import type { Db } from "../../db/database.ts";
import { type Lead, LeadLost, soleLead } from "../../db/leadership.ts";
import type { IngestResult, IngestService } from "../../ingest/ingest-service.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Result } from "../../lib/error-codes.ts";
import type { Logger } from "../../lib/log.ts";
import type { Metrics } from "../../lib/metrics.ts";
import { createWorker, type Worker } from "../../lib/worker.ts";
import { type Committed, catchUp, createReadSizes, type RunEnd } from "./catch-up.ts";
import type { ChainReader, ReadBlock } from "./chain-reader.ts";
import { storedHashAt, storedTip } from "./chain-store.ts";
import type { FollowerFailure } from "./follower-failure.ts";
import { followerGauges, newFollowerRecord, saveDue, snapshotOf } from "./follower-record.ts";
import { saveFollowerState, takeResumeRequest } from "./follower-state.ts";
import { createLeadTaker, fencedWrite } from "./leading.ts";
import { createProgress } from "./progress.ts";
import type { Quorum } from "./quorum.ts";
import { createReorgBrake } from "./reorg-brake.ts";
import { findCommonAncestor, unlinkedChain } from "./walk-back.ts";

export type ChainFollowerDeps<B extends ReadBlock> = {
  network: string;
  config: Pick<NetworkConfig, "start_height" | "poll_interval_ms" | "max_reorg_depth" | "max_reorgs_per_minute">;
  /** How this network's family is read from its node and turned into the blocks the ingest takes. */
  reader: ChainReader<B>;
  ingest: IngestService;
  db: Db;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  /** The label of the upstream that answered last (the pool's). */
  upstream: () => string;
  /** Blocks fetched ahead of the commit point while catching up. */
  concurrency?: number;
  /** Bytes of node answers the blocks read ahead may hold (the network's max_response_bytes); 32 MiB when absent. */
  readAheadBytes?: number;
  /** Most blocks committed in one ingest call. */
  batchBlocks?: number;
  /** Whether this daemon leads the network's follower (several daemons on one database); always, by default. */
  lead?: Lead;
  /** How this daemon names itself in `follow status` while it leads. */
  daemonName?: () => string;
  /** The upstream quorum of a network with `quorum` > 1 (quorum.ts), asked after each poll. */
  quorum?: Quorum;
};

/** One poll's outcome: `again` when it stored blocks and the next poll should not wait. */
type Polled = Result<{ again: boolean }, FollowerFailure>;

/** A poll that stored nothing: the next one waits a poll interval. */
const WAIT: Polled = { ok: true, again: false };

/**
 * Follows one network of any family: polls the node's head every `poll_interval_ms`, reads each
 * new height through the family's reader, and feeds the blocks through the ingest service
 * strictly in height order. The stored tip is the checkpoint: every pass starts at the stored tip
 * + 1, so a crash anywhere resumes with no gap, and re-fed blocks are no-ops in the ingest.
 * While behind, up to `concurrency` heights are fetched at once and up to `batchBlocks` read ones
 * wait to be committed together, with no more than `readAheadBytes` of node answers held for them
 * (catch-up.ts).
 *
 * A block whose parent is not the stored tip means the node switched chains: the follower walks
 * back, comparing the node's hashes with the stored ones, to the common ancestor (at most
 * `max_reorg_depth` blocks, walk-back.ts) and ingests the node's blocks from there; the ingest service orphans
 * what they replace. A deeper reorg stops the follower (state `error`) until `follow rewind`.
 * More than `max_reorgs_per_minute` reorgs hold the network for the rest of the minute
 * (reorg-brake.ts). A node whose blocks do not link (a block's parent is not the node's own block
 * below it) or whose answers are malformed (the reader's shape checks) is an upstream error:
 * nothing is stored, and the poll is tried again.
 */
export function createChainFollower<B extends ReadBlock>(deps: ChainFollowerDeps<B>): Worker {
  const { network, config, reader, db, clock, log, metrics } = deps;
  const lead = deps.lead ?? soleLead;
  const concurrency = deps.concurrency ?? 8;
  const readAheadBytes = deps.readAheadBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const batchBlocks = deps.batchBlocks ?? 32;
  // A block in flight is expected to be as large as the largest of the last ones read.
  const sizes = createReadSizes(concurrency);
  const record = newFollowerRecord();
  const progress = createProgress(clock.now());
  const brake = createReorgBrake({ maxPerMinute: config.max_reorgs_per_minute });
  const takeLead = createLeadTaker({ network, lead, metrics, log });
  // Set by stop(): an ongoing catch-up ends after the batch it is committing.
  let stopping = false;
  let announced = false;
  let lastSaveMs = 0;
  let wakeSleep: (() => void) | null = null;

  const labels = { network };
  const gauges = () => {
    for (const [name, value] of followerGauges(record)) metrics.setGauge(name, value, labels);
  };

  const save = async (force = false) => {
    const now = clock.now();
    if (!saveDue(lastSaveMs, now, force)) return;
    lastSaveMs = now;
    // A daemon that lost the lead leaves the row to the one that took it.
    if (!lead.held()) return;
    const snapshot = snapshotOf(record, {
      network,
      upstream: deps.upstream(),
      blocksPerSecond: progress.blocksPerSecond(clock.now()),
      leader: deps.daemonName?.() ?? null,
      quorumWait: deps.quorum?.waiting() ?? null,
    });
    await fencedWrite(db, lead, (trx) => saveFollowerState(trx, snapshot, now));
  };

  /** Stops the follower until `follow rewind` (a reorg deeper than max_reorg_depth). */
  const halt = async (error: string) => {
    record.halted = true;
    record.state = "error";
    record.lastError = error;
    // A rewind asked for before this stop is no answer to it.
    await fencedWrite(db, lead, (trx) => takeResumeRequest(trx, network));
  };

  /** Ingests a run of blocks; `refused` when the ingest refused them because the stored chain is not what the follower read. */
  const commit = async (batch: B[]): Promise<Committed> => {
    // Fenced: should another daemon have taken the lead since this one's last check (this one
    // paused in between), the database refuses the batch.
    let result: IngestResult;
    try {
      result = await deps.ingest.ingestBlocks(batch.map((b) => reader.toBlock(b)), { fence: lead.fence });
    } catch (e) {
      if (!(e instanceof LeadLost)) throw e;
      log.warn("follower batch refused: another daemon took the lead", { network, from_height: batch[0].height, to_height: batch[batch.length - 1].height });
      return "refused";
    }
    if (!result.ok) {
      // The stored chain moved under the follower (a rewind, a block posted to /ingest/blocks):
      // the next pass starts again from the stored tip.
      if (result.code === "PARENT_MISMATCH") return "refused";
      // The ingest service has logged and counted it.
      if (result.code === "REORG_TOO_DEEP") {
        await halt(result.error);
        return "refused";
      }
      return { ok: false, code: result.code, error: `ingest refused blocks ${batch[0].height}..${batch[batch.length - 1].height}: ${result.error}` };
    }
    record.tipHeight = batch[batch.length - 1].height;
    gauges();
    const now = clock.now();
    const line = progress.counted(batch.length, (record.nodeHeight ?? 0) - (record.tipHeight ?? 0), now);
    if (line) log.info("catching up", { network, height: record.tipHeight, node_height: record.nodeHeight, ...line });
    await save();
    return "stored";
  };

  /** Reads and ingests heights from..head (catch-up.ts) while this daemon runs and leads. */
  const run = (from: number, head: number, parent: string | null) =>
    catchUp(
      { read: (h, answered) => reader.read(h, answered), going: () => !stopping && lead.held(), confirmLead: () => lead.acquire(), commit, concurrency, batchBlocks, readAheadBytes, sizes },
      from,
      head,
      parent,
    );

  const hashes = { storedHashAt: (h: number) => storedHashAt(db, network, h), nodeHashAt: (h: number) => reader.hashAt(h) };

  /**
   * One poll: `again` when it stored blocks, so the next pass runs at once. What the node's reader
   * throws passes through (see follow below); the follower's own failures come back as values.
   */
  const pass = async (): Promise<Polled> => {
    if (record.halted) {
      if (!(await fencedWrite(db, lead, (trx) => takeResumeRequest(trx, network)))) {
        // Stopped, but still showing where the node is, for the operator choosing a rewind height
        // (the pass that stopped may have read the head mid-reorg); a failing read changes nothing.
        record.nodeHeight = await reader.head().catch(() => record.nodeHeight);
        gauges();
        return WAIT;
      }
      record.halted = false;
      record.lastError = null;
      log.info("follower resumed", { network });
    }
    const head = await reader.head();
    record.nodeHeight = head;
    const tip = await storedTip(db, network);
    record.tipHeight = tip?.height ?? null;
    gauges();
    const running = brake.check(clock.now());
    if (!running.ok) return running;
    const from = tip ? tip.height + 1 : config.start_height === "latest" ? head : config.start_height;
    record.state = head - from >= 1 ? "catching_up" : "following";
    if (from > head) {
      // Nothing new; but a reorg to a chain no longer than ours shows only as another hash at the top.
      if (!tip) return WAIT;
      const top = Math.min(head, tip.height);
      if ((await reader.hashAt(top)) === (await storedHashAt(db, network, top))) return WAIT;
      return walkBack(tip, head);
    }
    const end = await run(from, head, tip?.hash ?? null);
    if (end.kind === "failed") return end.failure;
    if (end.kind === "fork" && tip && end.height === from) return walkBack(tip, head, end);
    return { ok: true, again: record.tipHeight !== (tip?.height ?? null) };
  };

  /**
   * The node left the stored chain: re-reads it from the common ancestor, or stops on a reorg
   * deeper than allowed. The next pass waits a poll interval either way, so a node that keeps
   * disagreeing cannot make the follower spin. `fork` is the node's block above the stored tip
   * that does not name the tip as its parent, when that is what started the walk.
   */
  const walkBack = async (tip: { height: number; hash: string }, head: number, fork?: RunEnd & { kind: "fork" }): Promise<Polled> => {
    // Another chain behind the same upstream looks like a reorg: make sure of the chain first.
    reader.recheckChain?.();
    const ancestor = await findCommonAncestor(hashes, tip.height, config.max_reorg_depth);
    if (ancestor === null) {
      await halt(`reorg deeper than max_reorg_depth (${config.max_reorg_depth}) below height ${tip.height}; run: chainwatch follow rewind ${network} --to <height>`);
      metrics.inc("chainwatch_deep_reorgs_total", labels);
      log.error("deep reorg: follower stopped", { network, stored_tip: tip.height, max_reorg_depth: config.max_reorg_depth });
      return WAIT;
    }
    if (ancestor === tip.height) {
      // The node's block at the tip is the stored one, yet its block above names another parent.
      if (fork) return unlinkedChain(fork, tip.hash);
      // The node agrees with the stored tip after all (it answered from two different views).
      return WAIT;
    }
    const admitted = brake.admit(clock.now());
    if (!admitted.ok) return admitted;
    // The ingest service counts and logs the reorg when it applies it.
    log.info("walking back to the common ancestor", { network, depth: tip.height - ancestor, common_ancestor: ancestor, old_tip: tip.height });
    const ancestorHash = await storedHashAt(db, network, ancestor);
    const end = await run(ancestor + 1, head, ancestorHash);
    if (end.kind === "failed") return end.failure;
    if (end.kind === "fork" && end.height === ancestor + 1 && ancestorHash !== null) return unlinkedChain(end, ancestorHash);
    return WAIT;
  };

  /**
   * Asks the upstream quorum, when the network has one, about what waits to confirm below the
   * stored tip; true when it moved the follower to another upstream, whose chain the next poll reads.
   */
  const askQuorum = async (): Promise<boolean> => {
    const quorum = deps.quorum;
    if (!quorum || record.tipHeight === null || record.halted) return false;
    const outcome = await quorum.check(record.tipHeight);
    const wait = quorum.waiting();
    metrics.setGauge("chainwatch_quorum_waiting_seconds", wait ? Math.max(0, (clock.now() - wait.since) / 1000) : 0, labels);
    if (outcome !== "switched") return false;
    reader.recheckChain?.();
    return true;
  };

  /** Waits `ms`, or less when stop() wakes it. */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeSleep = null;
        resolve();
      }
      wakeSleep = done;
    });

  /**
   * The worker's run: polls until stop(). A poll's failure, a value or thrown, is the follower's
   * `error` until a poll goes well. Readers throw what went wrong with a node (a malformed answer,
   * a node error, no upstream answering, another chain): it crosses the read-ahead's promises and
   * the reader's wrappers by design and is caught here, the one place that shows it. A throw from
   * here on ends the run; the worker's next tick starts it again.
   */
  const follow = async (isStopping: () => boolean) => {
    let logged: string | null = null;
    /** Shows a failed poll; one log line per change of trouble, not one per failed poll (the pool logs upstream changes). */
    const failed = (message: string, paused: boolean) => {
      record.state = "error";
      record.lastError = message;
      if (logged !== message) log.warn(paused ? "follower paused" : "follower poll failed", { network, error: message });
      logged = message;
    };
    while (!isStopping()) {
      if (!(await takeLead())) {
        if (!isStopping()) await sleep(config.poll_interval_ms);
        continue;
      }
      if (!announced) log.info("following", { network, upstream: deps.upstream(), start_height: config.start_height });
      announced = true;
      let again = false;
      try {
        const polled = await pass();
        if (!polled.ok) failed(polled.error, polled.code === "FOLLOWER_PAUSED");
        else {
          again = polled.again;
          if (await askQuorum()) again = true;
          if (!again && record.state === "following" && !record.halted) await reader.atHead?.(lead.fence);
          if (!record.halted) {
            if (logged !== null) log.info("follower recovered", { network });
            logged = null;
            record.lastError = null;
          }
        }
      } catch (e) {
        failed((e as Error).message ?? String(e), false);
      }
      if (record.halted) record.state = "error";
      await save(true).catch((e) => log.error("cannot save follower state", { network, error: String(e) }));
      if (!again && !isStopping()) await sleep(config.poll_interval_ms);
    }
    record.state = "stopped";
    // Written before the lock is released (the daemon closes its leadership after its workers),
    // so a standby taking over next overwrites it, never the other way round.
    await save(true);
  };

  return createWorker({
    name: `follower:${network}`,
    log,
    // Polling is the run's own loop (poll_interval_ms may be under a second); the schedule only
    // restarts a run that ended with an error.
    schedule: "* * * * * *",
    runOnStart: true,
    failure: `follower of ${network} stopped by an error; restarting`,
    run: follow,
    // wake(): poll now instead of at the end of the interval.
    nudge: () => wakeSleep?.(),
    onStop: () => {
      stopping = true;
      wakeSleep?.();
    },
  });
}
