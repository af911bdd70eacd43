// How fast a follower stores blocks, and the `catching up` log line while it is far behind
// (docs/chains.md). Pure over the times it is handed.

/** Length of a rate window, and the least time between two `catching up` lines. */
export const PROGRESS_EVERY_MS = 10_000;
/** Heights behind the node past which a catch-up is logged. */
export const PROGRESS_BEHIND = 100;

/** The figures of a `catching up` line. */
export type ProgressLine = { blocks_per_second: number; eta_seconds: number | null };

export type Progress = {
  /**
   * Counts `blocks` just stored at `nowMs`, `behind` heights below the node; the figures of a
   * `catching up` line when one is due (more than PROGRESS_BEHIND behind, PROGRESS_EVERY_MS since
   * the last), else null.
   */
  counted(blocks: number, behind: number, nowMs: number): ProgressLine | null;
  /** Blocks per second, to one decimal: the last full window's rate, or the current window's until one is full. */
  blocksPerSecond(nowMs: number): number;
};

/**
 * A follower's progress from `startMs`: blocks/s over windows of PROGRESS_EVERY_MS, a window
 * closing at the first commit past its end.
 */
export function createProgress(startMs: number): Progress {
  let windowStartMs = startMs;
  let windowBlocks = 0;
  let rate: number | null = null;
  let lastLineMs = startMs;

  const blocksPerSecond = (nowMs: number) => {
    const elapsed = nowMs - windowStartMs;
    const current = rate ?? (elapsed > 0 ? (windowBlocks * 1000) / elapsed : 0);
    return Math.round(current * 10) / 10;
  };

  return {
    counted(blocks, behind, nowMs) {
      windowBlocks += blocks;
      if (nowMs - windowStartMs >= PROGRESS_EVERY_MS) {
        rate = (windowBlocks * 1000) / (nowMs - windowStartMs);
        windowStartMs = nowMs;
        windowBlocks = 0;
      }
      if (behind <= PROGRESS_BEHIND || nowMs - lastLineMs < PROGRESS_EVERY_MS) return null;
      lastLineMs = nowMs;
      const bps = blocksPerSecond(nowMs);
      return { blocks_per_second: bps, eta_seconds: bps > 0 ? Math.round(behind / bps) : null };
    },
    blocksPerSecond,
  };
}
