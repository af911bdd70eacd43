/** Structured logging: one JSON object a line. */
export type Logger = {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
};

/** Levels from the most to the least verbose; `[log] level` drops everything below it. */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A logger writing JSON lines through `write` (stdout for `serve`), stamped by `now`, from `level` up. */
export function jsonLogger(write: (line: string) => void, now: () => number = Date.now, level: LogLevel = "info"): Logger {
  const min = LOG_LEVELS.indexOf(level);
  const emit = (at: LogLevel) =>
    LOG_LEVELS.indexOf(at) < min
      ? () => {}
      : (msg: string, fields?: Record<string, unknown>) =>
          write(`${JSON.stringify({ time: new Date(now()).toISOString(), level: at, msg, ...fields })}\n`);
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

/** Discards everything (tests, CLI one-shots). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
