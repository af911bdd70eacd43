import { type ArgsDef, defineCommand } from "citty";
import type { ConfigOverride } from "../../src/config/env.ts";
import { openContext, startDaemon } from "../../src/daemon.ts";
import { lockDatabaseForServe } from "../../src/db/daemon-lock.ts";
import { jsonLogger } from "../../src/lib/log.ts";
import { configFor, databaseFile } from "../context.ts";
import { CommandError, type Globals, UsageError } from "../globals.ts";
import { globalArgs } from "./common.ts";

/**
 * serve's own flags: where it listens and which database it opens, the settings a service manager
 * or a container most often sets per instance. Each wins over its config key and variable. --json
 * and --create mean nothing to serve (it always logs JSON lines, and may always create), so it
 * does not take them.
 */
export const serveArgs = {
  config: globalArgs.config,
  host: { type: "string", valueHint: "address", description: "Address to listen on (config key server.host, $CHAINWATCH_SERVER__HOST)" },
  port: { type: "string", valueHint: "port", description: "Port to listen on, 0 for any free one (config key server.port, $CHAINWATCH_SERVER__PORT)" },
  database: {
    type: "string",
    valueHint: "url",
    description: "sqlite://<file> or postgres://… (config key database.url, $CHAINWATCH_DATABASE__URL)",
  },
} as const satisfies ArgsDef;

/** The config keys serve's flags set, each named by its flag in any message about it. */
export function flagOverrides(args: { host?: string; port?: string; database?: string }): ConfigOverride[] {
  const out: ConfigOverride[] = [];
  if (args.host !== undefined) out.push({ path: ["server", "host"], value: args.host, origin: "--host" });
  if (args.port !== undefined) {
    if (!/^\d{1,5}$/.test(args.port) || Number(args.port) > 65535) throw new UsageError("--port must be a port number, 0 to 65535");
    out.push({ path: ["server", "port"], value: Number(args.port), origin: "--port" });
  }
  if (args.database !== undefined) out.push({ path: ["database", "url"], value: args.database, origin: "--database" });
  return out;
}

export function serveCommand(g: Globals) {
  return defineCommand({
    meta: { name: "serve", description: "Migrate, then run the API, the delivery loop and the crons (JSON logs on stdout)" },
    args: serveArgs,
    async run({ args }) {
      const { config, origin } = configFor(g, flagOverrides(args));
      const out = g.io.log ?? g.io.stdout;
      const log = jsonLogger((line) => out.write(line), Date.now, config.log.level);
      // Caught from the first moment: a signal while starting (migrations run then) lets start-up
      // finish and stops at once, rather than killing the process half-way with no "stopped".
      const signal = nextStopSignal();
      try {
        // Before the database is opened (or migrated): a second serve on a SQLite file stops here.
        const claimed = lockDatabaseForServe(config.database.url);
        if (!claimed.ok) throw new CommandError(claimed.error);
        const ctx = await openContext(config, { log });
        const daemon = await startDaemon(ctx, { soleDaemon: claimed.sole });
        // Said once at start, after `listening`: which database this daemon uses, and which config chose it.
        log.info("database", { database: databaseFile(config), config: origin });
        // runMain would exit as soon as run() returns: wait here for the signal and a clean stop.
        log.info("shutting down", { signal: await signal.received });
        const closed = await daemon.stop().then(
          () => true,
          (e) => {
            log.error("shutdown failed", { error: String(e) });
            return false;
          },
        );
        // Only once the database is closed (src/lib/file-lock.ts says why); else the exit releases it.
        if (closed) claimed.lock.release();
      } finally {
        signal.dispose();
      }
      // Everything this process opened is closed now: the server, the workers, the database.
      log.info("stopped");
      exitPromptly();
    },
  });
}

/** The first SIGTERM or SIGINT, as a promise; dispose() stops listening (a second signal then kills as usual). */
function nextStopSignal(): { received: Promise<string>; dispose(): void } {
  let onTerm = () => {};
  let onInt = () => {};
  const received = new Promise<string>((resolve) => {
    onTerm = () => resolve("SIGTERM");
    onInt = () => resolve("SIGINT");
  });
  process.once("SIGTERM", onTerm);
  process.once("SIGINT", onInt);
  return {
    received,
    dispose() {
      process.off("SIGTERM", onTerm);
      process.off("SIGINT", onInt);
    },
  };
}

/**
 * After "stopped" nothing of chainwatch's is left open, and the process ends by itself within
 * milliseconds. Should a library still hold a handle (a socket closing, a timer), the process
 * exits anyway a moment later: the timer is unref'd, so it never delays an exit that comes sooner.
 */
function exitPromptly(): void {
  setTimeout(() => process.exit(process.exitCode ?? 0), EXIT_GRACE_MS).unref();
}

/** Long enough for stdout to drain the last log lines, short enough that nobody waits on it. */
const EXIT_GRACE_MS = 250;
