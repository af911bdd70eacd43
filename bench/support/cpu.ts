// CPU accounting for benchmarks on a shared box: how much CPU each role (daemons, PostgreSQL,
// receiver, load generator) used during a measured window, from /proc. On two cores the sum of
// these, not any one process, is what caps throughput. Linux only; elsewhere it reports nothing.
import { readdirSync, readFileSync } from "node:fs";

/** USER_HZ: /proc times are in clock ticks of 1/100 s on every Linux this runs on. */
const TICK_MS = 10;

/** Times of one process in ms: own user+system, and that of its reaped children. */
function processTimes(pid: number): { own: number; children: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command (which may hold spaces): state is field 3.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const [utime, stime, cutime, cstime] = [f[11], f[12], f[13], f[14]].map(Number);
    return { own: (utime + stime) * TICK_MS, children: (cutime + cstime) * TICK_MS };
  } catch {
    return undefined;
  }
}

function childrenOf(parent: number): number[] {
  const out: number[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync("/proc");
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^[0-9]+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent) out.push(Number(e));
    } catch {}
  }
  return out;
}

/** CPU ms used so far by a process alone. */
export function cpuOf(pid: number): number {
  return processTimes(pid)?.own ?? 0;
}

/**
 * CPU ms used so far by a process and all its children, live or exited (a PostgreSQL postmaster
 * and its backends: a backend that exits moves its time to the postmaster's children total).
 */
export function cpuOfTree(pid: number): number {
  const root = processTimes(pid);
  if (!root) return 0;
  return root.own + root.children + childrenOf(pid).reduce((sum, c) => sum + (processTimes(c)?.own ?? 0), 0);
}

/**
 * The time a live process's threads have run on a core so far, in ms, exact to the ns where
 * /proc/<pid>/stat counts 10 ms ticks: for a short window such as a start. Threads that already
 * ended are not counted.
 */
export function threadsRunTimeMs(pid: number): number {
  let us = 0;
  for (const t of threadRunTimes(pid).values()) us += t.us;
  return us / 1000;
}

/**
 * Each live thread of a process by its id: its name (`JITWorker`, `HeapHelper`, …; the main thread
 * has the process's id) and the µs it has run on a core so far (/proc/<pid>/task/<tid>/schedstat).
 */
export function threadRunTimes(pid: number): Map<string, { name: string; us: number }> {
  const out = new Map<string, { name: string; us: number }>();
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const task of tasks) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${task}/comm`, "utf8").trim();
      out.set(task, { name, us: Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]) / 1000 });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/** CPU µs of a process's threads over a window, in all and by kind of thread. */
export type ThreadKinds = { total: number; js: number; jit: number; gc: number; other: number };

/**
 * What each kind of a process's threads ran since `before` (a threadRunTimes of the same process):
 * the main thread runs the JavaScript; Bun names its JIT's and its collector's helper threads.
 * Threads that ended meanwhile are not counted.
 */
export function threadKindsSince(pid: number, before: Map<string, { name: string; us: number }>): ThreadKinds {
  const used: ThreadKinds = { total: 0, js: 0, jit: 0, gc: 0, other: 0 };
  for (const [tid, { name, us }] of threadRunTimes(pid)) {
    const d = us - (before.get(tid)?.us ?? 0);
    const kind = tid === String(pid) ? "js" : name.startsWith("JIT") ? "jit" : name.startsWith("HeapHelper") || name.includes("GC") ? "gc" : "other";
    used[kind] += d;
    used.total += d;
  }
  return used;
}

/** Several windows' ThreadKinds added up (the daemons of one set-up). */
export function sumThreadKinds(all: ThreadKinds[]): ThreadKinds {
  const sum: ThreadKinds = { total: 0, js: 0, jit: 0, gc: 0, other: 0 };
  for (const t of all) for (const k of Object.keys(sum) as (keyof ThreadKinds)[]) sum[k] += t[k];
  return sum;
}

/** The CPU µs this process has used so far, every thread's (user and system). */
export function ownCpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** Busy and total CPU ms of the whole machine so far (all cores, from /proc/stat). */
export function machineCpu(): { busy: number; total: number } {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0];
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = v[3] + (v[4] ?? 0);
    const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: (total - idle) * TICK_MS, total: total * TICK_MS };
  } catch {
    return { busy: 0, total: 0 };
  }
}

export function loadAverage(): string {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return "n/a";
  }
}

/** A named set of CPU counters, read at the start and end of a window. */
export type CpuProbe = Record<string, () => number>;

export type CpuWindow = { wallMs: number; byRole: Record<string, number>; machineBusy: number; machineTotal: number };

/** Starts a window; call the returned function at its end for each role's CPU ms over it. */
export function startCpuWindow(probe: CpuProbe): () => CpuWindow {
  const t0 = performance.now();
  const m0 = machineCpu();
  const start = Object.fromEntries(Object.entries(probe).map(([k, read]) => [k, read()]));
  return () => {
    const m1 = machineCpu();
    const byRole = Object.fromEntries(Object.entries(probe).map(([k, read]) => [k, read() - start[k]]));
    return { wallMs: performance.now() - t0, byRole, machineBusy: m1.busy - m0.busy, machineTotal: m1.total - m0.total };
  };
}

/** "daemons 95 %, postgres 60 %, machine 190 % of 200 %": CPU as a share of one core over the window. */
export function describeCpu(w: CpuWindow, cores: number): string {
  const pct = (ms: number) => `${Math.round((ms / w.wallMs) * 100)} %`;
  const roles = Object.entries(w.byRole).map(([k, ms]) => `${k} ${pct(ms)}`);
  const machine = w.machineTotal > 0 ? `machine ${Math.round((w.machineBusy / w.machineTotal) * cores * 100)} % of ${cores * 100} %` : "machine n/a";
  return [...roles, machine].join(", ");
}

/** CPU µs per unit of work (request, delivery) for each role. */
export function cpuPerUnit(w: CpuWindow, units: number): Record<string, number> {
  return Object.fromEntries(Object.entries(w.byRole).map(([k, ms]) => [k, Math.round((ms * 1000) / Math.max(1, units))]));
}
