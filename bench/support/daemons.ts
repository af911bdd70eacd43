// `chainwatch serve` subprocesses for benchmarks: N daemons on one config (so one database and
// one master key), each on its own ephemeral port (`[server] port = 0`), as docs/operations.md runs them.
import type { Subprocess } from "bun";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const CLI = join(import.meta.dir, "../../cli/index.ts");

export type Daemon = { proc: Subprocess; url: string };

/**
 * The command that runs chainwatch: `bun <bunArgs> cli/index.ts` of this tree, or of `tree` (another
 * checkout sharing this one's node_modules, for a before/after comparison). BENCH_BINARY (a binary
 * of `bun run build`, e.g. dist/chainwatch) runs instead for this tree: the daemon as shipped
 * (`bunArgs`, such as a profiler's flags, then do not apply).
 */
export function chainwatchCommand(bunArgs: string[] = [], tree?: string): string[] {
  const binary = tree ? undefined : process.env.BENCH_BINARY;
  return binary ? [binary] : [process.execPath, ...bunArgs, tree ? join(tree, "cli/index.ts") : CLI];
}

/**
 * Starts `count` daemons one after another and returns each with its base URL (no trailing
 * slash) once it logged `listening`. `track` receives every process as soon as it exists, so the
 * caller stops it by pid even if start-up fails. `extraArgs` and `tree` as chainwatchCommand takes them.
 */
export async function spawnDaemons(configPath: string, count: number, track: (p: Subprocess) => void, extraArgs: string[] = [], tree?: string): Promise<Daemon[]> {
  const out: Daemon[] = [];
  const command = chainwatchCommand(extraArgs, tree);
  for (let i = 0; i < count; i++) {
    const proc = Bun.spawn([...command, "serve", "--config", configPath], { stdin: "ignore", stdout: "pipe", stderr: "inherit" });
    track(proc);
    const line = await firstLine(proc, (l) => l.includes('"msg":"listening"'));
    out.push({ proc, url: String(JSON.parse(line).url).replace(/\/$/, "") });
  }
  return out;
}

/** The first stdout line matching `match`; stdout keeps draining afterwards so the child never blocks. */
export async function firstLine(proc: Subprocess<any, "pipe", any>, match: (line: string) => boolean): Promise<string> {
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`subprocess exited before it was ready: ${buf}`);
    buf += decoder.decode(value);
    const line = buf.split("\n").find(match);
    if (line) {
      (async () => {
        while (!(await reader.read().catch(() => ({ done: true }))).done) {}
      })();
      return line;
    }
  }
}

/** SIGTERM, then SIGKILL after 3 s; waits for each to exit. */
export async function stopAll(procs: Subprocess[]): Promise<void> {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGTERM");
  await Promise.all(procs.map((p) => Promise.race([p.exited, Bun.sleep(3000).then(() => p.kill("SIGKILL"))])));
}

/** A free TCP port on 127.0.0.1, below the range the kernel gives outgoing connections (test/support/free-port.ts). */
export { freePort } from "../../test/support/free-port.ts";

/** Polls until `url` answers 2xx (bounded to 15 s), failing early if `proc` exits; `init` for a POST probe. */
export async function waitForHealth(url: string, proc?: Subprocess, init?: RequestInit): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (proc && proc.exitCode !== null) throw new Error(`${url}: process exited with ${proc.exitCode}`);
    if (await fetch(url, init).then((r) => r.ok, () => false)) return;
    await Bun.sleep(50);
  }
  throw new Error(`${url} did not come up within 15 s`);
}

/** Writes `<dir>/chainwatch.toml` for bench daemons: 127.0.0.1 on ephemeral ports, `url`'s database, then `extra` lines. */
export function writeDaemonConfig(dir: string, url: string, extra: string[]): string {
  const path = join(dir, "chainwatch.toml");
  const lines = [...daemonConfigHead(dir, url), ...extra, ""];
  writeFileSync(path, lines.join("\n"));
  return path;
}

/** A bench daemon's first config lines: an ephemeral port on 127.0.0.1, its database, the master key kept in `dir`. */
export function daemonConfigHead(dir: string, url: string): string[] {
  return ["[server]", 'host = "127.0.0.1"', "port = 0", "[database]", `url = "${url}"`, "[secrets]", `master_key_file = "${dir}/master.key"`];
}
