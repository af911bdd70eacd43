import { describe, expect, test } from "bun:test";
import { type CatchUpDeps, catchUp, createReadSizes, type RunEnd, roomForOneMore } from "../../../src/follow/core/catch-up.ts";
import type { ReadBlock } from "../../../src/follow/core/chain-reader.ts";

// The follower's catch-up run over a chain of the test's own: what it commits, in which order and
// batches, where it stops, and how many reads it keeps in flight.

const hash = (h: number) => `h${h}`;
const chain = (bytes = 10) => (h: number): ReadBlock => ({ height: h, hash: hash(h), parentHash: hash(h - 1), bytes });

/** A run's deps over `blockAt` (null: the node has no block there), recording commits and the most reads in flight at once. */
function harness(blockAt: (h: number) => ReadBlock | null | Error, over: Partial<CatchUpDeps<ReadBlock>> = {}) {
  const committed: number[][] = [];
  let inFlight = 0;
  const seen = { maxInFlight: 0 };
  const deps: CatchUpDeps<ReadBlock> = {
    async read(h) {
      inFlight++;
      seen.maxInFlight = Math.max(seen.maxInFlight, inFlight);
      // Reads answer on a later turn, so several can be in flight at once.
      await new Promise((resolve) => setTimeout(resolve, 0));
      inFlight--;
      const block = blockAt(h);
      if (block instanceof Error) throw block;
      return block;
    },
    going: () => true,
    confirmLead: async () => true,
    async commit(batch) {
      committed.push(batch.map((b) => b.height));
      return "stored";
    },
    concurrency: 4,
    batchBlocks: 3,
    readAheadBytes: 1_000_000,
    sizes: createReadSizes(4),
    ...over,
  };
  return { deps, committed, seen };
}

describe("a catch-up run", () => {
  test("commits every height from..head once, in order, in batches of at most batchBlocks", async () => {
    const { deps, committed } = harness(chain());
    expect(await catchUp(deps, 5, 14, hash(4))).toEqual({ kind: "done" });
    expect(committed.flat()).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
    for (const batch of committed) expect(batch.length).toBeLessThanOrEqual(3);
  });

  test("ends at a block that does not extend the one before it, naming it, with the blocks before it committed", async () => {
    const { deps, committed } = harness((h) => (h === 8 ? { ...chain()(h), parentHash: "other" } : chain()(h)));
    expect(await catchUp(deps, 5, 14, hash(4))).toEqual({ kind: "fork", height: 8, hash: hash(8), parentHash: "other" });
    expect(committed.flat()).toEqual([5, 6, 7]);
  });

  test("takes its first block as it comes when nothing is stored below it, and ends where the node has no block yet", async () => {
    const { deps, committed } = harness((h) => (h >= 3 ? null : { ...chain()(h), parentHash: h === 0 ? "anything" : hash(h - 1) }));
    expect(await catchUp(deps, 0, 9, null)).toEqual({ kind: "done" });
    expect(committed.flat()).toEqual([0, 1, 2]);
  });

  test("commits what it read before a failed read, then throws the failure", async () => {
    const failure = new Error("the node went away");
    const { deps, committed } = harness((h) => (h === 7 ? failure : chain()(h)), { batchBlocks: 10 });
    await expect(catchUp(deps, 5, 14, hash(4))).rejects.toBe(failure);
    expect(committed.flat()).toEqual([5, 6]);
  });

  test("ends refused or failed as the ingest refuses a batch, and ends with nothing committed when the lead is gone", async () => {
    const refused = harness(chain(), { commit: async () => "refused" });
    expect(await catchUp(refused.deps, 5, 14, hash(4))).toEqual({ kind: "refused" });
    const failure = { ok: false, code: "INVALID_INPUT", error: "ingest refused blocks 5..7: a reason" } as const;
    const failed = harness(chain(), { commit: async () => failure });
    expect(await catchUp(failed.deps, 5, 14, hash(4))).toEqual({ kind: "failed", failure });
    const lost = harness(chain(), { confirmLead: async () => false });
    expect(await catchUp(lost.deps, 5, 14, hash(4))).toEqual({ kind: "done" });
    expect(lost.committed).toEqual([]);
  });

  test("reads nothing once it may not go on", async () => {
    const { deps, committed, seen } = harness(chain(), { going: () => false });
    expect(await catchUp(deps, 5, 14, hash(4))).toEqual({ kind: "done" });
    expect([committed, seen.maxInFlight]).toEqual([[], 0]);
  });

  test("keeps up to `concurrency` reads in flight for small blocks, and one at a time for blocks near the byte bound", async () => {
    const small = harness(chain(10), { readAheadBytes: 1000 });
    await catchUp(small.deps, 5, 30, hash(4));
    expect(small.seen.maxInFlight).toBe(4);
    const large = harness(chain(600), { readAheadBytes: 1000 });
    await catchUp(large.deps, 5, 30, hash(4));
    expect(large.seen.maxInFlight).toBe(1);
    expect(large.committed.flat()).toEqual(Array.from({ length: 26 }, (_, i) => 5 + i));
  });
});

describe("reads in flight", () => {
  /** Reads that answer when the test says, recording the heights asked for. */
  function heldReads() {
    const asked: number[] = [];
    const waiting = new Map<number, () => void>();
    const read = async (h: number): Promise<ReadBlock> => {
      asked.push(h);
      await new Promise<void>((resolve) => waiting.set(h, resolve));
      return chain()(h);
    };
    const answer = (h: number) => waiting.get(h)?.();
    return { asked, answer, read };
  }
  /** Calls `answerAll` every millisecond until the run ends; it must end done, having committed heights 5..20 in order. */
  const answerUntilDone = async (run: Promise<RunEnd>, committed: number[][], answerAll: () => void) => {
    const answering = setInterval(answerAll, 1);
    try {
      expect(await run).toEqual({ kind: "done" });
    } finally {
      clearInterval(answering);
    }
    expect(committed.flat()).toEqual(Array.from({ length: 16 }, (_, i) => 5 + i));
  };
  const turns = async (n = 5) => {
    for (let i = 0; i < n; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  };
  /** A follower that has read blocks of 10 bytes before: its first read does not go alone. */
  const known = () => {
    const sizes = createReadSizes(4);
    sizes.remember(10);
    return sizes;
  };

  test("a read that finishes starts the next height at once, while the run still waits for an earlier one", async () => {
    const reads = heldReads();
    const { deps, committed } = harness(chain(), { read: reads.read, concurrency: 3, batchBlocks: 3, sizes: known() });
    const run = catchUp(deps, 5, 20, hash(4));
    await turns();
    expect(reads.asked).toEqual([5, 6, 7]);
    // 6 and 7 answer before 5: their places go to 8 and 9, and theirs to 10 and 11, and so on as
    // far as the window of two batches and the reads in flight (3 + 3 + 3 past the height awaited)
    // lets the run read ahead.
    reads.answer(6);
    reads.answer(7);
    await turns();
    expect(reads.asked).toEqual([5, 6, 7, 8, 9]);
    reads.answer(8);
    reads.answer(9);
    await turns();
    expect(reads.asked).toEqual([5, 6, 7, 8, 9, 10, 11]);
    for (const h of [10, 11, 12]) reads.answer(h);
    await turns();
    expect(reads.asked).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13]);
    reads.answer(13);
    await turns();
    expect(reads.asked).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(committed).toEqual([]);
    // Then every height answers as it is asked, and the run commits them all in order.
    await answerUntilDone(run, committed, () => {
      for (const h of reads.asked) reads.answer(h);
    });
  });

  test("a read the node has answered gives its place to the next height before its answer is read", async () => {
    const asked: number[] = [];
    const nodeAnswered = new Map<number, () => void>();
    const settle = new Map<number, () => void>();
    const read = async (h: number, answered: () => void): Promise<ReadBlock> => {
      asked.push(h);
      nodeAnswered.set(h, answered);
      await new Promise<void>((resolve) => settle.set(h, resolve));
      return chain()(h);
    };
    const { deps, committed } = harness(chain(), { read, concurrency: 3, batchBlocks: 3, sizes: known() });
    const run = catchUp(deps, 5, 20, hash(4));
    await turns();
    expect(asked).toEqual([5, 6, 7]);
    // The node answers 5 and 6, whose answers wait to be read: two more heights go to the node.
    nodeAnswered.get(5)?.();
    nodeAnswered.get(6)?.();
    // Told twice, a read gives its place once.
    nodeAnswered.get(6)?.();
    await turns();
    expect(asked).toEqual([5, 6, 7, 8, 9]);
    // Answered reads waiting to be read are held to `concurrency` too: with 5..7 waiting, the node's
    // answer to 8 frees no place, and 10 starts only once an answer (5's) is read.
    for (const h of [7, 8]) nodeAnswered.get(h)?.();
    await turns();
    expect(asked).toEqual([5, 6, 7, 8, 9, 10]);
    settle.get(5)?.();
    await turns();
    expect(asked).toEqual([5, 6, 7, 8, 9, 10, 11]);
    // The window still holds while the batch waits for 6: 5 + two batches and the reads at the node,
    // whatever else is answered and read.
    for (let round = 0; round < 4; round++) {
      for (const h of asked) {
        if (h === 6) continue;
        nodeAnswered.get(h)?.();
        settle.get(h)?.();
      }
      await turns();
    }
    expect(asked).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13]);
    // Then each answer is read as it comes, and the run commits every height in order.
    await answerUntilDone(run, committed, () => {
      for (const h of asked) {
        nodeAnswered.get(h)?.();
        settle.get(h)?.();
      }
    });
  });

  test("no read starts after the run ended, when those still in flight answer", async () => {
    const reads = heldReads();
    const failure = new Error("the node went away");
    const { deps } = harness(chain(), {
      read: (h) => (h === 5 ? Promise.reject(failure) : reads.read(h)),
      concurrency: 3,
      batchBlocks: 3,
      sizes: known(),
    });
    await expect(catchUp(deps, 5, 20, hash(4))).rejects.toBe(failure);
    expect(reads.asked).toEqual([6, 7]);
    reads.answer(6);
    reads.answer(7);
    await turns();
    expect(reads.asked).toEqual([6, 7]);
  });
});

describe("the read-ahead's byte bound", () => {
  test.each([
    [{ heldBytes: 0, inFlight: 0, expected: 5000, limit: 1000 }, true],
    [{ heldBytes: 0, inFlight: 1, expected: 400, limit: 1000 }, true],
    [{ heldBytes: 300, inFlight: 1, expected: 400, limit: 1000 }, false],
    [{ heldBytes: 200, inFlight: 1, expected: 400, limit: 1000 }, true],
    [{ heldBytes: 1, inFlight: 0, expected: 1000, limit: 1000 }, false],
  ])("%o: %p", (a, fits) => {
    expect(roomForOneMore(a)).toBe(fits);
  });

  test("expects a block as large as the largest of the last ones read", () => {
    const sizes = createReadSizes(2);
    expect(sizes.expected()).toBeNull();
    sizes.remember(500);
    sizes.remember(100);
    expect(sizes.expected()).toBe(500);
    sizes.remember(200);
    expect(sizes.expected()).toBe(200);
  });
});
