// CPU per request of a load run: the serving processes' and the load generator's CPU (from /proc)
// over the run's measured window, which opens after the warm-up by the clock.
import type { Subprocess } from "bun";
import { type CpuProbe, type CpuWindow, cpuOf, startCpuWindow, type ThreadKinds, threadKindsSince, threadRunTimes } from "./cpu.ts";

/**
 * Starts measuring `roles` (each a CPU counter in ms) plus the load generator of a load run
 * started right after this call. Hand `track` to `runLoadInSubprocess`; `window` resolves when
 * the measured window closes. With `threadsOf`, the window also splits that process's CPU by
 * thread (`threads`, µs): its JavaScript thread, its JIT's compiler threads and the rest.
 */
export function measureLoadCpu(
  roles: CpuProbe,
  timing: { warmupMs: number; durationMs: number },
  track: (p: Subprocess) => void = () => {},
  threadsOf?: number,
): { track: (p: Subprocess) => void; window: Promise<CpuWindow & { threads?: ThreadKinds }> } {
  let generator: Subprocess | undefined;
  // A generator that already exited (the window's timer can fire late on a loaded machine) has no
  // /proc entry left: its whole run's CPU, from Bun, stands in rather than a negative figure.
  const generatorCpu = (g: Subprocess) => (g.exitCode === null && g.signalCode === null ? cpuOf(g.pid) : Number(g.resourceUsage()?.cpuTime.total ?? 0) / 1000);
  const probe: CpuProbe = { ...roles, "load generator": () => (generator ? generatorCpu(generator) : 0) };
  const window = Bun.sleep(timing.warmupMs).then(async () => {
    const threadsAtStart = threadsOf === undefined ? null : { pid: threadsOf, times: threadRunTimes(threadsOf) };
    const end = startCpuWindow(probe);
    await Bun.sleep(timing.durationMs);
    const cpu = end();
    return threadsAtStart === null ? cpu : { ...cpu, threads: threadKindsSince(threadsAtStart.pid, threadsAtStart.times) };
  });
  return {
    track: (p) => {
      generator = p;
      track(p);
    },
    window,
  };
}

/** The sum of every role's µs per request. */
export function totalUs(us: Record<string, number>): number {
  return Object.values(us).reduce((a, b) => a + b, 0);
}

/** "server 18 + load generator 39 = 57". */
export function describeUs(us: Record<string, number>): string {
  return `${Object.entries(us)
    .map(([k, v]) => `${k} ${v}`)
    .join(" + ")} = ${totalUs(us)}`;
}
