/** Where progress goes: stderr, drawn only when it is a terminal. */
export type ProgressStream = { isTTY?: boolean; write(text: string): unknown };

export type Progress = {
  /** A step that may take a while (reading, parsing): shown on its own line. */
  step(text: string): void;
  /** Redraws the one progress line in place. */
  update(text: string): void;
  /** Ends the progress line. */
  done(): void;
  /** Writes a whole line (a log line) above the progress line, which the next update draws again; piped, just writes it. */
  above(line: string): void;
};

/**
 * Progress for a person watching a terminal: a line redrawn in place on stderr, at most every
 * `everyMs` (the last state is always drawn). Piped or
 * redirected, it writes nothing, so scripts see exactly the output they saw before.
 */
export function terminalProgress(stream: ProgressStream, now: () => number = performance.now.bind(performance), everyMs = 100): Progress {
  if (!stream.isTTY) return { step() {}, update() {}, done() {}, above: (line) => void stream.write(line) };
  let open = false;
  let drawnAt = Number.NEGATIVE_INFINITY;
  // The latest text not drawn yet (updates come faster than a person reads): drawn by done().
  let pending: string | null = null;
  const draw = (text: string) => {
    // \r back to the line start, \x1b[K clears what a longer previous text left behind.
    stream.write(`\r${text}\x1b[K`);
    open = true;
    pending = null;
    drawnAt = now();
  };
  return {
    step(text) {
      if (pending !== null) draw(pending);
      stream.write(`${open ? "\n" : ""}${text}\n`);
      open = false;
    },
    update(text) {
      if (now() - drawnAt >= everyMs) draw(text);
      else pending = text;
    },
    done() {
      if (pending !== null) draw(pending);
      if (open) stream.write("\n");
      open = false;
    },
    above(line) {
      // The progress line is wiped, the line written in its place, and the next update redraws at once.
      stream.write(`${open ? "\r\x1b[K" : ""}${line}`);
      open = false;
      drawnAt = Number.NEGATIVE_INFINITY;
    },
  };
}
