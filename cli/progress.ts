/** Where progress goes: stderr, drawn only when it is a terminal. */
export type ProgressStream = { isTTY?: boolean; write(text: string): unknown };

export type Progress = {
  /** A step that may take a while (reading, parsing): shown on its own line. */
  step(text: string): void;
  /** Redraws the one progress line in place. */
  update(text: string): void;
  /** Ends the progress line. */
  done(): void;
};

/**
 * Progress for a person watching a terminal: a line redrawn in place on stderr. Piped or
 * redirected, it writes nothing, so scripts see exactly the output they saw before.
 */
export function terminalProgress(stream: ProgressStream): Progress {
  if (!stream.isTTY) return { step() {}, update() {}, done() {} };
  let open = false;
  return {
    step(text) {
      stream.write(`${open ? "\n" : ""}${text}\n`);
      open = false;
    },
    update(text) {
      // \r back to the line start, \x1b[K clears what a longer previous text left behind.
      stream.write(`\r${text}\x1b[K`);
      open = true;
    },
    done() {
      if (open) stream.write("\n");
      open = false;
    },
  };
}
