import type { ReadBlock } from "./chain-reader.ts";
import type { FollowerFailure } from "./follower-failure.ts";

// The follower's catch-up run: heights read ahead of the commit point, committed in order and in
// batches, the read-ahead bounded in count and in bytes. No database, no node: what it reads and
// how it commits are handed in (chain-follower.ts), so a test drives it with blocks of its own.

/**
 * Why a catch-up run ended early: a fork names the block that did not extend the one before it;
 * `refused`, the stored chain moved under the run; `failed`, the ingest refused a batch for good.
 */
export type RunEnd =
  | { kind: "done" }
  | { kind: "fork"; height: number; hash: string; parentHash: string }
  | { kind: "refused" }
  | { kind: "failed"; failure: FollowerFailure };

/** What a commit came to: stored, refused because the stored chain is not what was read, or a failure. */
export type Committed = "stored" | "refused" | FollowerFailure;

/** The sizes of the last blocks read, one follower's memory across runs. */
export type ReadSizes = {
  remember(bytes: number): void;
  /** The size a block in flight is expected to have: the largest of the last ones; null before the first. */
  expected(): number | null;
};

/** Remembers the sizes of the last `keep` blocks read. */
export function createReadSizes(keep: number): ReadSizes {
  const recent: number[] = [];
  return {
    remember(bytes) {
      recent.push(bytes);
      if (recent.length > keep) recent.shift();
    },
    expected: () => (recent.length > 0 ? Math.max(...recent) : null),
  };
}

/**
 * Whether one more read fits the byte bound: the blocks read and not yet committed (`heldBytes`)
 * plus those in flight and the new one, each `expected` bytes, stay within `limit`. One read always
 * fits when nothing is held or in flight, however large (each answer is capped by the pool), so
 * huge blocks are read one at a time.
 */
export function roomForOneMore(a: { heldBytes: number; inFlight: number; expected: number; limit: number }): boolean {
  if (a.inFlight === 0 && a.heldBytes === 0) return true;
  return a.heldBytes + (a.inFlight + 1) * a.expected <= a.limit;
}

export type CatchUpDeps<B extends ReadBlock> = {
  /**
   * The block at a height, or null when the node has none there yet. `answered`, called when the
   * node has answered (its answer not yet read and checked), frees the read's place among those
   * the node holds; a read that never calls it holds its place until it settles.
   */
  read(height: number, answered: () => void): Promise<B | null>;
  /** Whether the run may go on reading: the follower is not stopping and still leads. */
  going(): boolean;
  /** Confirms the lead before each commit; false ends the run (another daemon follows on). */
  confirmLead(): Promise<boolean>;
  /** Commits a batch in order. */
  commit(batch: B[]): Promise<Committed>;
  /** Reads the node holds at once, at most: in flight and not yet answered (and as many answered, not yet read). */
  concurrency: number;
  /** Blocks committed together at most. */
  batchBlocks: number;
  /** Bytes of node answers the blocks read ahead may hold. */
  readAheadBytes: number;
  sizes: ReadSizes;
};

/**
 * Ingests heights from..head in order, fetching up to `concurrency` ahead. `parent` is the hash
 * the first block must extend (null: nothing stored below it). Ends early at a block that does
 * not extend the one before it, or when the node has no block at a height yet.
 *
 * The read-ahead is bounded in heights: none is read more than two batches and `concurrency`
 * past the first height not yet taken into a batch, so the next batch is read while one commits.
 * It is bounded by bytes too: the blocks read and not yet committed, plus those in flight at the
 * size of the largest recent block, stay within `readAheadBytes` (roomForOneMore); a fresh
 * follower reads one block first, to learn the size.
 *
 * A read the node has answered starts the next one at once, also while the run still waits for an
 * earlier height and before its own answer is read and checked, so the node keeps `concurrency`
 * reads to work on instead of one less for each read that finished out of order or waits for this
 * thread. No read starts once the run has ended.
 */
export async function catchUp<B extends ReadBlock>(deps: CatchUpDeps<B>, from: number, head: number, parent: string | null): Promise<RunEnd> {
  const { concurrency, batchBlocks, readAheadBytes, sizes } = deps;
  type Slot = { settled: boolean; value: B | null; atNode: boolean; promise: Promise<B | null> };
  const slots = new Map<number, Slot>();
  let launched = from;
  let next = from;
  /** Reads the node holds: started, not yet answered. */
  let inFlight = 0;
  /** Reads answered, their answers not yet read and checked. */
  let answeredReads = 0;
  let heldBytes = 0;
  let ended = false;
  const launch = () => {
    // At most `concurrency` reads at the node, and no more than two batches of read blocks waiting
    // to commit: the one filling or committing, and the next, read meanwhile (a window of one batch
    // stops every read while the batch waits for its last block or commits, and the node sits idle).
    while (
      launched <= head &&
      inFlight < concurrency &&
      // And as many answered reads waiting for this thread at most, so a node that answers fast and
      // sends slowly never has more than twice `concurrency` reads open.
      inFlight + answeredReads < 2 * concurrency &&
      launched - next < 2 * batchBlocks + concurrency &&
      deps.going() &&
      // Answers not yet read count at the expected size too.
      roomForOneMore({ heldBytes, inFlight: inFlight + answeredReads, expected: sizes.expected() ?? readAheadBytes, limit: readAheadBytes })
    ) {
      const slot = { settled: false, value: null, atNode: true } as Slot;
      inFlight++;
      // Its place at the node goes to the next height as soon as the node has answered.
      const answered = () => {
        if (!slot.atNode) return;
        slot.atNode = false;
        inFlight--;
        answeredReads++;
        if (!ended) launch();
      };
      const leaves = () => {
        if (slot.atNode) inFlight--;
        else answeredReads--;
        slot.atNode = false;
      };
      slot.promise = deps.read(launched, answered);
      slot.promise.then(
        (v) => {
          leaves();
          if (v) {
            heldBytes += v.bytes;
            sizes.remember(v.bytes);
          }
          Object.assign(slot, { settled: true, value: v });
          // Its place goes to the next height, whichever height the run waits for.
          if (!ended) launch();
        },
        leaves,
      );
      slots.set(launched++, slot);
    }
  };
  try {
    // A lead lost mid catch-up ends it after the batch in flight: another daemon follows on.
    while (next <= head && deps.going()) {
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
      if (batch.length > 0 && !(await deps.confirmLead())) return { kind: "done" };
      if (batch.length > 0) {
        const committed = await deps.commit(batch);
        if (committed === "refused") return { kind: "refused" };
        if (committed !== "stored") return { kind: "failed", failure: committed };
      }
      for (const b of batch) heldBytes -= b.bytes;
      if (failed !== null) throw failed;
      if (end) return end;
    }
    return { kind: "done" };
  } finally {
    // Reads still in flight settle into nothing: no read starts after the run.
    ended = true;
  }
}
