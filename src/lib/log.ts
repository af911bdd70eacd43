/** Structured logging: one JSON object a line. */
export type Logger = {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
};

/** A logger writing JSON lines through `write` (stdout for `serve`), stamped by `now`. */
export function jsonLogger(write: (line: string) => void, now: () => number = Date.now): Logger {
  const emit = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
    write(`${JSON.stringify({ time: new Date(now()).toISOString(), level, msg, ...fields })}\n`);
  return { info: emit("info"), warn: emit("warn"), error: emit("error") };
}

/** Discards everything (tests, CLI one-shots). */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
