// Clean-up when a benchmark is interrupted (Ctrl-C, SIGTERM): its `finally` blocks never run then,
// so the processes it started and the PostgreSQL cluster would outlive it.

const cleanups: (() => void)[] = [];

/** Runs `fn` (synchronously, in registration order) if the process gets SIGINT or SIGTERM, then exits. */
export function onInterrupt(fn: () => void): void {
  if (cleanups.length === 0)
    for (const signal of ["SIGINT", "SIGTERM"] as const)
      process.once(signal, () => {
        for (const f of cleanups) {
          try {
            f();
          } catch {}
        }
        process.exit(signal === "SIGINT" ? 130 : 143);
      });
  cleanups.push(fn);
}

/** Registers the kill of every process in `procs` (read at interrupt time) by its own pid. */
export function killOnInterrupt(procs: readonly { pid: number; exitCode: number | null; signalCode: unknown; kill(signal?: number | NodeJS.Signals): void }[]): void {
  onInterrupt(() => {
    for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  });
}
