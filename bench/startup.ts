// Start-up benchmark (not a test): `bun run bench:startup`.
//
// What a start costs: `serve` until GET /healthz answers (on a database that already exists, as
// at every restart), `plans list --json` (a command that opens the database) and `version`, each
// started BENCH_STARTS times (3) a round for BENCH_ROUNDS rounds (5), the sides taking turns. The
// sides: the source as the README's quick start runs it (`bun cli/index.ts`), the single binary as
// `bun run build` makes it (its flags read from package.json), the same binary built without
// `--bytecode` when the build uses it, and the floor: bench/support/bare-start.ts (Elysia and
// SQLite, nothing of chainwatch's) built with the binary's flags. CPU is the process's time on a
// core: for `serve`, its threads' run time (/proc/<pid>/task/*/schedstat, in ns) at the moment
// /healthz first answers; for a command, its user + system time once it exited. Prints medians over the rounds (lowest–highest
// round) and each side's ratio to the floor.
import type { Subprocess } from "bun";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { loadAverage, threadsRunTimeMs } from "./support/cpu.ts";
import { freePort } from "./support/daemons.ts";
import { median, spread } from "./support/rounds.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const STARTS = Number(process.env.BENCH_STARTS ?? 3);
const ROOT = join(import.meta.dir, "..");
const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-startup-"));

type Side = { name: string; argv: string[]; floor: boolean };
type Operation = "serve" | "plans list --json" | "version";
const OPERATIONS: Operation[] = ["serve", "plans list --json", "version"];

const running: Subprocess[] = [];
try {
  await main();
} finally {
  for (const p of running) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  const sides = buildSides();
  const configs = new Map(sides.map((s) => [s.name, prepare(s)]));
  // One unmeasured start each: the database and master key are made, the files are in the page cache.
  for (const s of sides) await startServe(s, configs.get(s.name) as Prepared);

  // cpu[operation][side] = the median CPU ms of each round's starts.
  const cpu = new Map<Operation, Map<string, number[]>>(OPERATIONS.map((o) => [o, new Map(sides.map((s) => [s.name, []]))]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = sides.map((_, i) => sides[(i + round) % sides.length]);
    const line: string[] = [];
    for (const op of OPERATIONS) {
      for (const s of order) {
        const starts: number[] = [];
        for (let i = 0; i < STARTS; i++) starts.push(op === "serve" ? await startServe(s, configs.get(s.name) as Prepared) : await runCommand(s, op, configs.get(s.name) as Prepared));
        (cpu.get(op)?.get(s.name) as number[]).push(median(starts));
      }
      line.push(`${op}: ${sides.map((s) => `${s.name} ${(cpu.get(op)?.get(s.name) as number[])[round].toFixed(0)}`).join(", ")}`);
    }
    console.log(`round ${round + 1}  CPU ms a start: ${line.join("; ")}; load ${loadAverage()}`);
  }

  console.log("");
  console.log(`machine      ${cpus().length} vCPU ${cpus()[0]?.model ?? "?"}, load average ${loadAverage()} at the end; Bun ${Bun.version}`);
  console.log(`rounds       ${ROUNDS}, each ${STARTS} starts of every side and operation; median (lowest–highest round) of each round's median`);
  const floor = sides.find((s) => s.floor) as Side;
  for (const op of OPERATIONS) {
    const ms = cpu.get(op) as Map<string, number[]>;
    const floorMs = median(ms.get(floor.name) as number[]);
    const cells = sides.map((s) => {
      const xs = ms.get(s.name) as number[];
      return `${s.name} ${spread(xs)}${s.floor ? "" : ` (${(median(xs) / floorMs).toFixed(1)}×)`}`;
    });
    console.log(`${`${op}:`.padEnd(18)} CPU ms a start: ${cells.join(", ")}`);
  }
  const binary = sides[1].name;
  const serveMs = cpu.get("serve") as Map<string, number[]>;
  console.log(
    `start-up: the ${binary} serves after ${median(serveMs.get(binary) as number[]).toFixed(0)} ms of CPU, the source after ${median(serveMs.get("source") as number[]).toFixed(0)}, the floor after ${median(serveMs.get(floor.name) as number[]).toFixed(0)}`,
  );
}

/** The sides, building the binaries with package.json's build flags into the bench's own folder. */
function buildSides(): Side[] {
  const script: string = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts.build;
  const flags = script.split(/\s+/).filter((w, i, all) => w.startsWith("--") && w !== "--outfile" && all[i - 1] !== "--outfile");
  const build = (entry: string, out: string, used: string[]) => {
    const started = performance.now();
    const r = Bun.spawnSync([process.execPath, "build", entry, ...used, "--outfile", out], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`cannot build ${entry}: ${r.stderr.toString()}`);
    console.log(`built        ${out.slice(dir.length + 1)}: ${((performance.now() - started) / 1000).toFixed(1)} s, ${(statSync(out).size / 2 ** 20).toFixed(0)} MiB (${used.join(" ")})`);
    return out;
  };
  const sides: Side[] = [
    { name: "source", argv: [process.execPath, join(ROOT, "cli/index.ts")], floor: false },
    { name: "binary", argv: [build(join(ROOT, "cli/index.ts"), join(dir, "chainwatch"), flags)], floor: false },
  ];
  if (flags.includes("--bytecode")) {
    const plain = flags.filter((f) => f !== "--bytecode");
    sides.push({ name: "binary without bytecode", argv: [build(join(ROOT, "cli/index.ts"), join(dir, "chainwatch-plain"), plain)], floor: false });
  }
  sides.push({ name: "floor", argv: [build(join(ROOT, "bench/support/bare-start.ts"), join(dir, "bare-start"), flags)], floor: true });
  return sides;
}

type Prepared = { port: number; config: string; db: string };

function prepare(side: Side): Prepared {
  const home = join(dir, side.name.replaceAll(" ", "-"));
  mkdirSync(home);
  const port = freePort();
  const config = join(home, "chainwatch.toml");
  const db = join(home, "chainwatch.db");
  writeFileSync(config, ["[server]", `port = ${port}`, "[database]", `url = "sqlite://${db}"`, "[secrets]", `master_key_file = "${home}/master.key"`, ""].join("\n"));
  return { port, config, db };
}

/** Starts `serve`, returns its CPU ms once /healthz answered, and stops it. */
async function startServe(side: Side, p: Prepared): Promise<number> {
  const args = side.floor ? ["serve", String(p.port), p.db] : ["serve", "--config", p.config];
  const proc = Bun.spawn([...side.argv, ...args], { cwd: dir, stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  running.push(proc);
  const deadline = performance.now() + 30_000;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${p.port}/healthz`).then((r) => r.ok, () => false);
    if (ok) break;
    if (proc.exitCode !== null || performance.now() > deadline) throw new Error(`${side.name} serve did not answer /healthz: ${await new Response(proc.stderr).text()}`);
    await Bun.sleep(2);
  }
  const ms = threadsRunTimeMs(proc.pid);
  proc.kill("SIGTERM");
  await proc.exited;
  return ms;
}

/** Runs a command to its end and returns its CPU ms. */
async function runCommand(side: Side, op: Operation, p: Prepared): Promise<number> {
  const args = op === "version" ? ["version"] : side.floor ? ["read", p.db] : ["plans", "list", "--json", "--config", p.config];
  const proc = Bun.spawn([...side.argv, ...args], { cwd: dir, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  running.push(proc);
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  if (code !== 0 || out.length === 0) throw new Error(`${side.name} ${op} failed (exit ${code}): ${await new Response(proc.stderr).text()}`);
  const usage = proc.resourceUsage();
  return usage ? Number(usage.cpuTime.total) / 1000 : 0;
}
