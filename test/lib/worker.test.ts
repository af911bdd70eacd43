import { describe, expect, it } from "bun:test";
import type { Logger } from "../../src/lib/log.ts";
import { createWorker, type WorkerSpec } from "../../src/lib/worker.ts";

/** A run that blocks until the test releases it, so overlap is decided by events, not by timing. */
function gatedRuns() {
  const gates: (() => void)[] = [];
  const started: (() => void)[] = [];
  let runs = 0;
  let inFlight = 0;
  let peak = 0;
  return {
    get runs() {
      return runs;
    },
    get peak() {
      return peak;
    },
    /** Resolves once the next run has started. */
    nextStart: () => new Promise<void>((resolve) => started.push(resolve)),
    /** Lets the oldest blocked run finish. */
    release: () => gates.shift()?.(),
    run: async () => {
      runs++;
      inFlight++;
      peak = Math.max(peak, inFlight);
      started.shift()?.();
      await new Promise<void>((resolve) => gates.push(resolve));
      inFlight--;
    },
  };
}

function logCollector(): Logger & { errors: { msg: string; fields?: Record<string, unknown> }[] } {
  const errors: { msg: string; fields?: Record<string, unknown> }[] = [];
  return { debug() {}, info() {}, warn() {}, error: (msg, fields) => void errors.push({ msg, fields }), errors };
}

const spec = (over: Partial<WorkerSpec> & Pick<WorkerSpec, "run">): WorkerSpec => ({
  name: "test",
  log: logCollector(),
  // Yearly: no scheduled run can start during a test, every run comes from wake().
  schedule: "0 0 0 1 1 *",
  failure: "test run failed",
  ...over,
});

describe("createWorker", () => {
  it("runs on wake() before start(), and idle() resolves when the run is over", async () => {
    const g = gatedRuns();
    const w = createWorker(spec({ run: g.run }));
    const started = g.nextStart();
    w.wake();
    await started;
    expect(g.runs).toBe(1);
    let idle = false;
    const waiting = w.idle().then(() => (idle = true));
    await Promise.resolve();
    expect(idle).toBe(false);
    g.release();
    await waiting;
    expect(idle).toBe(true);
  });

  it("turns any number of wakes during a run into exactly one more run, never two at once", async () => {
    const g = gatedRuns();
    const nudges: number[] = [];
    const w = createWorker(spec({ run: g.run, nudge: () => nudges.push(g.runs) }));
    const first = g.nextStart();
    w.wake();
    await first;
    w.wake();
    w.wake();
    w.wake();
    expect(nudges).toEqual([1, 1, 1]);
    const second = g.nextStart();
    g.release();
    await second;
    g.release();
    await w.idle();
    expect(g.runs).toBe(2);
    expect(g.peak).toBe(1);
  });

  it("logs a run that throws and runs again on the next wake", async () => {
    const log = logCollector();
    let calls = 0;
    const w = createWorker(
      spec({
        log,
        run: async () => {
          calls++;
          if (calls === 1) throw new Error("boom");
        },
      }),
    );
    w.wake();
    await w.idle();
    expect(log.errors).toEqual([{ msg: "test run failed", fields: { error: "Error: boom" } }]);
    w.wake();
    await w.idle();
    expect(calls).toBe(2);
  });

  it("stop() tells the run it is stopping, waits for it, and later wakes do nothing", async () => {
    const g = gatedRuns();
    const seen: boolean[] = [];
    let onStopCalls = 0;
    const w = createWorker(
      spec({
        run: async (stopping) => {
          seen.push(stopping());
          await g.run();
          seen.push(stopping());
        },
        onStop: () => onStopCalls++,
      }),
    );
    const started = g.nextStart();
    w.wake();
    await started;
    let stopped = false;
    const stopping = w.stop().then(() => (stopped = true));
    expect(onStopCalls).toBe(1);
    await Promise.resolve();
    expect(stopped).toBe(false);
    g.release();
    await stopping;
    expect(seen).toEqual([false, true]);
    w.wake();
    await w.idle();
    expect(g.runs).toBe(1);
  });

  it("stop() gives up waiting after stopGraceMs and leaves the run to finish on its own", async () => {
    const g = gatedRuns();
    const w = createWorker(spec({ run: g.run, stopGraceMs: 10 }));
    const started = g.nextStart();
    w.wake();
    await started;
    await w.stop();
    expect(g.runs).toBe(1);
    g.release();
    await w.idle();
  });

  it("runs on its croner schedule once started, and runOnStart runs at once", async () => {
    const g = gatedRuns();
    const w = createWorker(spec({ run: g.run, schedule: "* * * * * *" }));
    const ticked = g.nextStart();
    w.start();
    await ticked;
    g.release();
    await w.stop();

    const h = gatedRuns();
    const now = createWorker(spec({ run: h.run, runOnStart: true }));
    const started = h.nextStart();
    now.start();
    await started;
    expect(h.runs).toBe(1);
    h.release();
    await now.stop();
  });
});
