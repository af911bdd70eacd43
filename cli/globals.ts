import { writeSync } from "node:fs";

/** Where a command writes: a stream's `write` and whether a person's terminal is at its end. */
export type Writer = { write(text: string): unknown; isTTY?: boolean };

/** Where a command writes and what environment it reads: the process's, or a caller's (cli/run.ts). */
export type CliIo = {
  stdout: Writer;
  stderr: Writer;
  env: Record<string, string | undefined>;
  /** Where `serve` writes its log lines; `stdout` when absent. */
  log?: Writer;
};

/**
 * The process's own output and environment. A command writes its few lines straight to the file
 * descriptors (fdWriter); `serve`'s log goes through the process's stdout stream, which buffers
 * what a slow reader has not taken yet instead of holding the daemon's loop.
 */
export const processIo = (): CliIo => ({
  stdout: fdWriter(1),
  stderr: fdWriter(2),
  env: process.env,
  get log() {
    return process.stdout;
  },
});

/**
 * Blocking writes to file descriptor `fd`. Node's `process.stdout` and `process.stderr` are stream
 * objects whose code a fresh process loads on first use: about 20 ms of CPU, a fifth of a short
 * command's whole run. A reader that went away (`chainwatch … | head -1`) ends the output quietly,
 * as it does for any Unix tool; a descriptor left non-blocking by another process is waited on.
 */
export function fdWriter(fd: 1 | 2): Writer {
  let gone = false;
  let tty: boolean | undefined;
  return {
    write(text: string) {
      const bytes = Buffer.from(text);
      for (let at = 0; at < bytes.length && !gone; ) {
        try {
          at += writeSync(fd, bytes, at);
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          // EPIPE from a pipe; ECONNRESET from a socket pair (what Bun.spawn and some supervisors give a child) closed with output unread.
          if (code === "EPIPE" || code === "ECONNRESET") gone = true;
          else if (code === "EAGAIN") Bun.sleepSync(1);
          else throw e;
        }
      }
      return true;
    },
    // Asked only for colour and progress; node:tty costs as much to load as the streams.
    get isTTY() {
      tty ??= (require("node:tty") as typeof import("node:tty")).isatty(fd);
      return tty;
    },
  };
}

/** Flags every command takes, before or after the command name, and the invocation's streams. */
export type Globals = { config?: string; json: boolean; create: boolean; io: CliIo };

/**
 * Lifts `--config <file>` / `--config=<file>`, `--json` and `--create` out of argv wherever they stand: citty
 * takes the first non-flag word as the subcommand, so `chainwatch --config x serve` would
 * otherwise treat `x` as the command.
 */
export function liftGlobals(argv: string[], io: CliIo = processIo()): { globals: Globals; rest: string[]; lifted: string[] } {
  const globals: Globals = { json: false, create: false, io };
  const rest: string[] = [];
  // Which were given, so a command that does not take one (serve and --json) can refuse it.
  const lifted = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    // `--json=true` too: citty would take it, and the command would quietly print its table instead.
    const toggle = /^--(json|create)(?:=(true|false))?$/.exec(a);
    if (toggle) lifted.add(toggle[1]);
    if (a === "--config" || a.startsWith("--config=")) lifted.add("config");
    if (toggle) globals[toggle[1] as "json" | "create"] = toggle[2] !== "false";
    else if ((a === "--config" || a.startsWith("--config=")) && globals.config !== undefined) throw new UsageError("--config is given more than once");
    else if (a === "--config") {
      const value = argv[++i];
      if (value === undefined || value === "" || value.startsWith("-")) throw new UsageError("--config needs a file path");
      globals.config = value;
    } else if (a.startsWith("--config=")) {
      // An empty path would quietly mean "no --config": the defaults, or another file found elsewhere.
      globals.config = a.slice("--config=".length);
      if (globals.config === "") throw new UsageError("--config needs a file path");
    } else rest.push(a);
  }
  return { globals, rest, lifted: [...lifted] };
}

/** A mistake in how the command was called: exit 2. */
export class UsageError extends Error {}

/** The command ran and failed: one line on stderr, exit 1. */
export class CommandError extends Error {}

/** Every value of a repeatable string flag (`--allow-ip a --allow-ip b`). */
export function repeated(rawArgs: string[], flag: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    if (rawArgs[i] === `--${flag}`) {
      const v = rawArgs[i + 1];
      if (v === undefined || v.startsWith("--")) throw new UsageError(`--${flag} needs a value`);
      out.push(v);
      i++;
    } else if (rawArgs[i].startsWith(`--${flag}=`)) out.push(rawArgs[i].slice(flag.length + 3));
  }
  return out;
}

/** A non-negative integer flag; undefined when absent. */
export function intFlag(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !/^\d{1,15}$/.test(value)) throw new UsageError(`--${name} must be a non-negative integer`);
  return Number(value);
}
