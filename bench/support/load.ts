// A small HTTP load generator shared by the benchmarks: N concurrent fetch loops over keep-alive
// connections for a fixed time, with latency percentiles. Use `runLoad` in-process, or
// `runLoadInSubprocess` to keep the generator's CPU out of the process under test.
// Run directly (`bun bench/support/load.ts <spec.json>`) it executes a spec and prints one JSON result line.
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** One request to send; headers are sent as given (pre-signed, for the signed API). */
export type LoadTarget = { url: string; method?: string; headers?: Record<string, string>; body?: string };

export type LoadOptions = {
  /** A single GET target. */
  url?: string;
  /** Targets cycled through in order, spreading load over them (e.g. one per API key). */
  targets?: LoadTarget[];
  /** Builds the n-th request (n counts across all loops); wins over `targets` and `url`. In-process only. */
  requestFactory?: (n: number) => LoadTarget;
  /** Concurrent fetch loops; each keeps one request in flight. */
  connections: number;
  /** Length of the measured window. */
  durationMs: number;
  /** Unmeasured run before the window (JIT, connection set-up). Default 0. */
  warmupMs?: number;
};

/** Latencies in milliseconds; `requests` counts every response in the window, `errors` those not 2xx or failed. */
export type LoadResult = { requests: number; rps: number; errors: number; p50: number; p99: number; durationMs: number };

/** Runs the load and reports throughput and latency of the measured window. */
export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const next = targetSource(opts);
  const warmup = opts.warmupMs ?? 0;
  const begin = performance.now();
  const measureFrom = begin + warmup;
  const measureTo = measureFrom + opts.durationMs;
  const latencies: number[] = [];
  let errors = 0;

  async function loop(): Promise<void> {
    while (performance.now() < measureTo) {
      const t = next();
      const start = performance.now();
      let ok = false;
      try {
        const res = await fetch(t.url, { method: t.method ?? "GET", headers: t.headers, body: t.body });
        await res.arrayBuffer(); // the body must be read for the connection to be reused
        ok = res.status >= 200 && res.status < 300;
      } catch {
        ok = false;
      }
      const end = performance.now();
      // Only requests both started and finished inside the window count, so warm-up and the
      // tail after the deadline never inflate the rate.
      if (start >= measureFrom && end <= measureTo) {
        latencies.push(end - start);
        if (!ok) errors++;
      }
    }
  }

  await Promise.all(Array.from({ length: opts.connections }, loop));
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    rps: Math.round(latencies.length / (opts.durationMs / 1000)),
    errors,
    p50: round2(percentile(latencies, 0.5)),
    p99: round2(percentile(latencies, 0.99)),
    durationMs: opts.durationMs,
  };
}

/** The spec a subprocess runs: `runLoad` options without the (unserializable) request factory. */
export type LoadSpec = Omit<LoadOptions, "requestFactory">;

/**
 * Runs the load in a separate Bun process and returns its result. `track` receives the process as
 * soon as it exists, so the caller can kill it by pid if it is interrupted.
 */
export async function runLoadInSubprocess(spec: LoadSpec, track: (p: Subprocess) => void = () => {}): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), "chainwatch-load-"));
  const file = join(dir, "spec.json");
  writeFileSync(file, JSON.stringify(spec));
  try {
    const proc = Bun.spawn([process.execPath, import.meta.path, file], { stdin: "ignore", stdout: "pipe", stderr: "inherit" });
    track(proc);
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    if (code !== 0) throw new Error(`load generator exited with ${code}`);
    return JSON.parse(out.trim().split("\n").at(-1)!) as LoadResult;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function targetSource(opts: LoadOptions): () => LoadTarget {
  let n = 0;
  if (opts.requestFactory) {
    const factory = opts.requestFactory;
    return () => factory(n++);
  }
  const targets = opts.targets ?? (opts.url ? [{ url: opts.url }] : []);
  if (targets.length === 0) throw new Error("runLoad needs url, targets or requestFactory");
  return () => targets[n++ % targets.length];
}

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

if (import.meta.main) {
  const spec = JSON.parse(await Bun.file(process.argv[2]).text()) as LoadSpec;
  process.stdout.write(`${JSON.stringify(await runLoad(spec))}\n`);
}
