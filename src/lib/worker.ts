import { Cron } from "croner";
import type { Logger } from "./log.ts";

/** Background work the daemon starts after listening and stops (waiting for the run in flight) on shutdown. */
export type Worker = {
  name: string;
  /** Starts the schedule (and, with `runOnStart`, a run now). */
  start(): void;
  /** Runs now, started or not; during a run, asks for exactly one more run after it. Does nothing once stopped. */
  wake(): void;
  /** Resolves when no run is in flight (tests, benchmarks). */
  idle(): Promise<void>;
  /** Stops the schedule, then waits for the run in flight (bounded by `stopGraceMs` when given). */
  stop(): Promise<void>;
};

export type WorkerSpec = {
  name: string;
  log: Logger;
  /** croner pattern: `* * * * * *` every second, `@hourly`, … */
  schedule: string;
  /** croner's `interval`: at least this many seconds between scheduled runs. */
  intervalSeconds?: number;
  /** Run once at start() instead of waiting for the first tick. */
  runOnStart?: boolean;
  /** Upper bound on how long stop() waits for the run in flight; unbounded when absent. */
  stopGraceMs?: number;
  /** Logged (with the error) when a run throws; the worker keeps its schedule. */
  failure: string;
  /** One run. `stopping()` turns true once stop() is called: a long run should wind down then. */
  run(stopping: () => boolean): Promise<void>;
  /** Called on wake() while a run is in flight, so the run can pick up the new work at once. */
  nudge?(): void;
  /** Called at the start of stop(), before waiting: e.g. to unblock a run that waits for work. */
  onStop?(): void;
};

/**
 * A worker: a croner schedule plus wake(), with one guard against overlap — its own in-flight
 * promise. croner's `protect` would not do: `trigger()` ignores it, and a run started by wake()
 * is invisible to croner anyway. A tick while a run is in flight does nothing (the run is already
 * working through whatever is due); a wake() then asks for one more run, because the work it
 * announces may have arrived after the run last looked.
 */
export function createWorker(spec: WorkerSpec): Worker {
  let cron: Cron | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let stopping = false;
  const isStopping = () => stopping;

  async function runUntilQuiet(): Promise<void> {
    try {
      do {
        again = false;
        await spec.run(isStopping);
      } while (again && !stopping);
    } catch (e) {
      spec.log.error(spec.failure, { error: String(e) });
    } finally {
      running = null;
    }
  }

  function wake(): void {
    if (stopping) return;
    if (running) {
      again = true;
      spec.nudge?.();
      return;
    }
    running = runUntilQuiet();
  }

  return {
    name: spec.name,
    wake,
    start() {
      if (stopping || cron) return;
      // The tick only starts a run; the run's own errors are caught in runUntilQuiet.
      const onError = (e: unknown) => spec.log.error(spec.failure, { error: String(e) });
      cron = new Cron(spec.schedule, { interval: spec.intervalSeconds, catch: onError }, () => {
        if (!running) wake();
      });
      if (spec.runOnStart) wake();
    },
    async idle() {
      while (running) await running;
    },
    async stop() {
      stopping = true;
      cron?.stop();
      spec.onStop?.();
      if (!running) return;
      if (spec.stopGraceMs === undefined) {
        await running;
        return;
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, spec.stopGraceMs);
      });
      await Promise.race([running, bound]);
      clearTimeout(timer);
    },
  };
}
