import type { Transaction } from "kysely";
import { DEFAULT_MAX_RESPONSE_BYTES, type NetworkConfig } from "../../config/schema.ts";
import type { Db } from "../../db/database.ts";
import { type Lead, LeadLost, soleLead } from "../../db/leadership.ts";
import type { DB } from "../../db/schema.ts";
import type { Metrics } from "../../lib/metrics.ts";
import type { IngestResult, IngestService } from "../../ingest/ingest-service.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Logger } from "../../lib/log.ts";
import { createWorker, type Worker } from "../../lib/worker.ts";
import type { ChainReader, ReadBlock } from "./chain-reader.ts";
import { storedHashAt, storedTip } from "./chain-store.ts";
import { type FollowerState, saveFollowerState, takeResumeRequest } from "./follower-state.ts";
import { createReorgBrake, FollowerPaused } from "./reorg-brake.ts";
import { MalformedUpstreamData } from "./upstream-data.ts";

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
};

const PROGRESS_EVERY_MS = 10_000;
const PROGRESS_BEHIND = 100;
const SAVE_EVERY_MS = 1_000;

/** Why a catch-up run ended early; a fork names the block that did not extend the one before it. */
type RunEnd = { kind: "done" } | { kind: "fork"; height: number; hash: string; parentHash: string } | { kind: "refused" };

/**
 * Follows one network of any family: polls the node's head every `poll_interval_ms`, reads each
 * new height through the family's reader, and feeds the blocks through the ingest service
 * strictly in height order. The stored tip is the checkpoint: every pass starts at the stored tip
 * + 1, so a crash anywhere resumes with no gap, and re-fed blocks are no-ops in the ingest.
 * While behind, up to `concurrency` heights are fetched at once and up to `batchBlocks` read ones
 * wait to be committed together, with no more than `readAheadBytes` of node answers held for them
 * (see catchUp).
 *
 * A block whose parent is not the stored tip means the node switched chains: the follower walks
 * back, comparing the node's hashes with the stored ones, to the common ancestor (at most
 * `max_reorg_depth` blocks) and ingests the node's blocks from there; the ingest service orphans
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
  // Sizes of the last blocks read: a block in flight is expected to be as large as the largest.
  const recentSizes: number[] = [];
  const remember = (bytes: number) => {
    recentSizes.push(bytes);
    if (recentSizes.length > concurrency) recentSizes.shift();
  };
  const batchBlocks = deps.batchBlocks ?? 32;
  // Set by stop(): an ongoing catch-up ends after the batch it is committing.
  let stopping = false;
  let announced = false;
  /** Whether this daemon led at its last look (null: not looked yet). */
  let leading: boolean | null = null;
  let wakeSleep: (() => void) | null = null;

  let state: FollowerState = "catching_up";
  let nodeHeight: number | null = null;
  let tipHeight: number | null = null;
  let lastError: string | null = null;
  /** Set by a reorg deeper than max_reorg_depth; cleared by `follow rewind`. */
  let halted = false;
  let lastSaveMs = 0;
  // blocks/s over windows of PROGRESS_EVERY_MS: the last full window's rate, or the current
  // window's until one is full. A window closes at the first commit past its end.
  let windowStartMs = clock.now();
  let windowBlocks = 0;
  let rate: number | null = null;
  let lastProgressMs = clock.now();
  const brake = createReorgBrake({ maxPerMinute: config.max_reorgs_per_minute });

  const labels = { network };
  const gauges = () => {
    if (nodeHeight !== null) metrics.setGauge("chainwatch_follower_node_height", nodeHeight, labels);
    if (tipHeight !== null) metrics.setGauge("chainwatch_follower_stored_tip", tipHeight, labels);
    if (nodeHeight !== null && tipHeight !== null) metrics.setGauge("chainwatch_follower_lag", Math.max(0, nodeHeight - tipHeight), labels);
  };

  /**
   * Runs one of the follower's writes in a transaction fenced by the lead's epoch; null, with
   * nothing written, when another daemon has taken the lead since this one took it.
   */
  const asLeader = async <T>(write: (trx: Transaction<DB>) => Promise<T>): Promise<T | null> => {
    try {
      return await db.transaction().execute(async (trx) => {
        await lead.fence(trx);
        return write(trx);
      });
    } catch (e) {
      if (e instanceof LeadLost) return null;
      throw e;
    }
  };

  const save = async (force = false) => {
    const now = clock.now();
    if (!force && now - lastSaveMs < SAVE_EVERY_MS) return;
    lastSaveMs = now;
    // A daemon that lost the lead leaves the row to the one that took it.
    if (!lead.held()) return;
    const snapshot = { network, upstream: deps.upstream(), nodeHeight, state, lastError, blocksPerSecond: blocksPerSecond(), leader: deps.daemonName?.() ?? null };
    await asLeader((trx) => saveFollowerState(trx, snapshot, now));
  };

  const blocksPerSecond = () => {
    const elapsed = clock.now() - windowStartMs;
    const current = rate ?? (elapsed > 0 ? (windowBlocks * 1000) / elapsed : 0);
    return Math.round(current * 10) / 10;
  };

  const counted = (blocks: number) => {
    const now = clock.now();
    windowBlocks += blocks;
    if (now - windowStartMs >= PROGRESS_EVERY_MS) {
      rate = (windowBlocks * 1000) / (now - windowStartMs);
      windowStartMs = now;
      windowBlocks = 0;
    }
    const behind = (nodeHeight ?? 0) - (tipHeight ?? 0);
    if (behind > PROGRESS_BEHIND && now - lastProgressMs >= PROGRESS_EVERY_MS) {
      lastProgressMs = now;
      const bps = blocksPerSecond();
      log.info("catching up", { network, height: tipHeight, node_height: nodeHeight, blocks_per_second: bps, eta_seconds: bps > 0 ? Math.round(behind / bps) : null });
    }
  };

  /** Stops the follower until `follow rewind` (a reorg deeper than max_reorg_depth). */
  const halt = async (error: string) => {
    halted = true;
    state = "error";
    lastError = error;
    // A rewind asked for before this stop is no answer to it.
    await asLeader((trx) => takeResumeRequest(trx, network));
  };

  /** Ingests a run of blocks; false when the ingest refused them because the stored chain is not what the follower read. */
  const commit = async (batch: B[]): Promise<boolean> => {
    // Fenced: should another daemon have taken the lead since this one's last check (this one
    // paused in between), the database refuses the batch.
    let result: IngestResult;
    try {
      result = await deps.ingest.ingestBlocks(batch.map((b) => reader.toBlock(b)), { fence: lead.fence });
    } catch (e) {
      if (!(e instanceof LeadLost)) throw e;
      log.warn("follower batch refused: another daemon took the lead", { network, from_height: batch[0].height, to_height: batch[batch.length - 1].height });
      return false;
    }
    if (!result.ok) {
      // The stored chain moved under the follower (a rewind, a block posted to /ingest/blocks):
      // the next pass starts again from the stored tip.
      if (result.code === "PARENT_MISMATCH") return false;
      // The ingest service has logged and counted it.
      if (result.code === "REORG_TOO_DEEP") {
        await halt(result.error);
        return false;
      }
      throw new Error(`ingest refused blocks ${batch[0].height}..${batch[batch.length - 1].height}: ${result.error}`);
    }
    tipHeight = batch[batch.length - 1].height;
    gauges();
    counted(batch.length);
    await save();
    return true;
  };

  /**
   * Ingests heights from..head in order, fetching up to `concurrency` ahead. `parent` is the hash
   * the first block must extend (null: nothing stored below it). Ends early at a block that does
   * not extend the one before it, or when the node has no block at a height yet.
   *
   * The read-ahead is bounded by bytes too: the blocks read and not yet committed, plus those in
   * flight at the size of the largest recent block, stay within `readAheadBytes`. One block is
   * always read, however large (each answer is capped by the pool), so huge blocks are read one
   * at a time instead of eight; a fresh follower reads one first, to learn the size.
   */
  const catchUp = async (from: number, head: number, parent: string | null): Promise<RunEnd> => {
    type Slot = { settled: boolean; value: B | null; promise: Promise<B | null> };
    const slots = new Map<number, Slot>();
    let launched = from;
    let next = from;
    let inFlight = 0;
    let heldBytes = 0;
    const roomForOneMore = () => {
      if (inFlight === 0 && heldBytes === 0) return true;
      const expected = recentSizes.length > 0 ? Math.max(...recentSizes) : readAheadBytes;
      return heldBytes + (inFlight + 1) * expected <= readAheadBytes;
    };
    const launch = () => {
      // At most `concurrency` reads in flight, and up to a batch of read blocks waiting to commit.
      while (launched <= head && inFlight < concurrency && launched - next < batchBlocks + concurrency && !stopping && lead.held() && roomForOneMore()) {
        const slot: Slot = { settled: false, value: null, promise: reader.read(launched) };
        inFlight++;
        slot.promise.then(
          (v) => {
            inFlight--;
            if (v) {
              heldBytes += v.bytes;
              remember(v.bytes);
            }
            Object.assign(slot, { settled: true, value: v });
          },
          () => inFlight--,
        );
        slots.set(launched++, slot);
      }
    };
    // A lead lost mid catch-up ends it after the batch in flight: another daemon follows on.
    while (next <= head && !stopping && lead.held()) {
      launch();
      // A failed fetch throws here; the fetches still in flight are abandoned with the run.
      let block = await (slots.get(next) as Slot).promise;
      const batch: B[] = [];
      let end: RunEnd | null = null;
      /** A read that failed after the batch began: the batch is committed first, then it is thrown. */
      let failed: unknown = null;
      // A batch fills while reads go on: one ingest transaction for up to `batchBlocks` blocks
      // instead of one per block that happened to be ready (each transaction has a fixed cost).
      while (true) {
        if (block === null) {
          end = { kind: "done" };
          break;
        }
        if (parent !== null && block.parentHash !== parent) {
          end = { kind: "fork", height: block.height, hash: block.hash, parentHash: block.parentHash };
          break;
        }
        batch.push(block);
        slots.delete(block.height);
        parent = block.hash;
        if (batch.length >= batchBlocks) break;
        launch();
        const following = slots.get(block.height + 1);
        // Nothing more is being read (the head, a stop, the byte bound): commit what there is.
        if (!following) break;
        try {
          block = following.settled ? following.value : await following.promise;
        } catch (e) {
          failed = e;
          break;
        }
      }
      next += batch.length;
      // Refill the window before committing, so the node keeps working while SQLite does.
      if (!end && failed === null) launch();
      // Confirmed before each commit, not only per poll: a lock connection that went silent (a
      // network cut) fails this check within its query timeout, well before PostgreSQL frees the
      // lock for another daemon, so two daemons never ingest side by side for long.
      if (batch.length > 0 && !(await lead.acquire())) return { kind: "done" };
      if (batch.length > 0 && !(await commit(batch))) return { kind: "refused" };
      for (const b of batch) heldBytes -= b.bytes;
      if (failed !== null) throw failed;
      if (end) return end;
    }
    return { kind: "done" };
  };

  /** Finds the newest height where the node and the store agree, at most max_reorg_depth below the tip; null when deeper. */
  const commonAncestor = async (tip: { height: number }): Promise<number | null> => {
    for (let h = tip.height; h >= 0 && h >= tip.height - config.max_reorg_depth; h--) {
      const stored = await storedHashAt(db, network, h);
      // Nothing stored this low (the follower started above it): nothing to disagree with.
      if (stored === null) return h;
      if ((await reader.hashAt(h)) === stored) return h;
    }
    return null;
  };

  /** One poll: returns true when it stored blocks, so the next pass runs at once. */
  const pass = async (): Promise<boolean> => {
    if (halted) {
      if (!(await asLeader((trx) => takeResumeRequest(trx, network)))) {
        // Stopped, but still showing where the node is, for the operator choosing a rewind height
        // (the pass that stopped may have read the head mid-reorg); a failing read changes nothing.
        nodeHeight = await reader.head().catch(() => nodeHeight);
        gauges();
        return false;
      }
      halted = false;
      lastError = null;
      log.info("follower resumed", { network });
    }
    const head = await reader.head();
    nodeHeight = head;
    const tip = await storedTip(db, network);
    tipHeight = tip?.height ?? null;
    gauges();
    brake.assertRunning(clock.now());
    const from = tip ? tip.height + 1 : config.start_height === "latest" ? head : config.start_height;
    state = head - from >= 1 ? "catching_up" : "following";
    if (from > head) {
      // Nothing new; but a reorg to a chain no longer than ours shows only as another hash at the top.
      if (!tip) return false;
      const top = Math.min(head, tip.height);
      if ((await reader.hashAt(top)) === (await storedHashAt(db, network, top))) return false;
      return walkBack(tip, head);
    }
    const end = await catchUp(from, head, tip?.hash ?? null);
    if (end.kind === "fork" && tip && end.height === from) return walkBack(tip, head, end);
    return tipHeight !== (tip?.height ?? null);
  };

  /**
   * The node left the stored chain: re-reads it from the common ancestor, or stops on a reorg
   * deeper than allowed. Returns false: the next pass waits a poll interval either way, so a node
   * that keeps disagreeing cannot make the follower spin. `fork` is the node's block above the
   * stored tip that does not name the tip as its parent, when that is what started the walk.
   */
  const walkBack = async (tip: { height: number; hash: string }, head: number, fork?: RunEnd & { kind: "fork" }): Promise<boolean> => {
    // Another chain behind the same upstream looks like a reorg: make sure of the chain first.
    reader.recheckChain?.();
    const ancestor = await commonAncestor(tip);
    if (ancestor === null) {
      await halt(`reorg deeper than max_reorg_depth (${config.max_reorg_depth}) below height ${tip.height}; run: chainwatch follow rewind ${network} --to <height>`);
      metrics.inc("chainwatch_deep_reorgs_total", labels);
      log.error("deep reorg: follower stopped", { network, stored_tip: tip.height, max_reorg_depth: config.max_reorg_depth });
      return false;
    }
    if (ancestor === tip.height) {
      // The node's block at the tip is the stored one, yet its block above names another parent.
      if (fork) throw unlinked(fork, tip.hash);
      // The node agrees with the stored tip after all (it answered from two different views).
      return false;
    }
    brake.admit(clock.now());
    // The ingest service counts and logs the reorg when it applies it.
    log.info("walking back to the common ancestor", { network, depth: tip.height - ancestor, common_ancestor: ancestor, old_tip: tip.height });
    const ancestorHash = await storedHashAt(db, network, ancestor);
    const end = await catchUp(ancestor + 1, head, ancestorHash);
    if (end.kind === "fork" && end.height === ancestor + 1 && ancestorHash !== null) throw unlinked(end, ancestorHash);
    return false;
  };

  /** A node answering a chain that does not connect: shown as the follower's error, never taken for a reorg. */
  const unlinked = (fork: { height: number; hash: string; parentHash: string }, below: string) =>
    new MalformedUpstreamData(
      `the node's blocks do not link: block ${fork.height} (${fork.hash}) names parent ${fork.parentHash}, ` +
        `but the node's block ${fork.height - 1} is ${below}`,
    );

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
   * Takes or confirms the lead; logs and shows (`chainwatch_follower_leader`) each change. A standby
   * only asks again, once per poll interval, and reads nothing.
   */
  const takeLead = async (): Promise<boolean> => {
    const now = await lead.acquire();
    if (now !== leading) {
      metrics.setGauge("chainwatch_follower_leader", now ? 1 : 0, labels);
      if (!now) log.info(leading ? "follower lead lost: standing by" : "follower standing by: another daemon leads", { network });
      else if (leading === false) log.info("follower lead taken", { network });
      leading = now;
    }
    return now;
  };

  /** The worker's run: polls until stop(). A throw ends it; the worker's next tick starts it again. */
  const follow = async (isStopping: () => boolean) => {
    let logged: string | null = null;
    while (!isStopping()) {
      if (!(await takeLead())) {
        if (!isStopping()) await sleep(config.poll_interval_ms);
        continue;
      }
      if (!announced) log.info("following", { network, upstream: deps.upstream(), start_height: config.start_height });
      announced = true;
      let again = false;
      try {
        again = await pass();
        if (!again && state === "following" && !halted) await reader.atHead?.(lead.fence);
        if (!halted) {
          if (logged !== null) log.info("follower recovered", { network });
          logged = null;
          lastError = null;
        }
      } catch (e) {
        const message = (e as Error).message ?? String(e);
        state = "error";
        lastError = message;
        // One line per change of trouble, not one per failed poll (the pool logs upstream changes).
        if (logged !== message) log.warn(e instanceof FollowerPaused ? "follower paused" : "follower poll failed", { network, error: message });
        logged = message;
      }
      if (halted) state = "error";
      await save(true).catch((e) => log.error("cannot save follower state", { network, error: String(e) }));
      if (!again && !isStopping()) await sleep(config.poll_interval_ms);
    }
    state = "stopped";
    // Written before the lock is released (the daemon closes its leadership after its workers),
    // so a standby taking over next overwrites it, never the other way round.
    await save(true);
  };

  const worker = createWorker({
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
  return worker;
}
