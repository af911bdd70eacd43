import type { Subprocess } from "bun";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// The CLI that tests spawn: `cli/index.ts` bundled for Bun, as `bun run build` bundles it for the
// single binary. A `bun cli/index.ts` process spends most of its start loading ~400 separate
// modules; the bundle starts in a fraction of the CPU time, and the suite spawns the CLI a few
// hundred times. The bundle is built from the working tree and keyed by a hash of everything that
// goes into it (src/, cli/, package.json, bun.lock, this file), so a test never runs a stale CLI; a run
// builds it at most once, and runs that share a tree share the build.

const ROOT = join(import.meta.dir, "../..");
const ENTRY = join(ROOT, "cli/index.ts");
const CACHE = join(tmpdir(), "chainwatch-test-cli");
/** Builds older than this are removed when a new one is made (a test run that uses one lasts minutes). */
const STALE_MS = 6 * 3600_000;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

function sourceHash(): string {
  const h = createHash("sha256");
  const files = [...filesUnder(join(ROOT, "src")), ...filesUnder(join(ROOT, "cli")), join(ROOT, "package.json"), join(ROOT, "bun.lock")].sort();
  for (const f of files) {
    h.update(f.slice(ROOT.length));
    h.update("\0");
    if (existsSync(f)) h.update(readFileSync(f));
    h.update("\0");
  }
  h.update(Bun.version);
  // And how it is built: this file.
  h.update(readFileSync(import.meta.path));
  return h.digest("hex").slice(0, 16);
}

function pruneOld(keep: string) {
  for (const name of readdirSync(CACHE)) {
    if (name === keep) continue;
    const p = join(CACHE, name);
    try {
      if (Date.now() - statSync(p).mtimeMs > STALE_MS) rmSync(p, { recursive: true, force: true });
    } catch {
      // Another run pruned it first.
    }
  }
}

function buildCli(): string {
  const key = sourceHash();
  const dir = join(CACHE, key);
  const out = join(dir, "index.js");
  if (existsSync(out)) return out;
  mkdirSync(CACHE, { recursive: true });
  // Built beside its final name and renamed into place, so a concurrent run never reads half a
  // build. Compiled ahead to bytecode, as `bun run build` compiles the binary: a command then
  // loads its modules without parsing them, at about two thirds of the CPU of a bundle split into
  // chunks (which parses only what a command imports, but parses it).
  const partial = join(CACHE, `${key}.${process.pid}.${Math.random().toString(36).slice(2)}`);
  const built = Bun.spawnSync([process.execPath, "build", ENTRY, "--target", "bun", "--bytecode", "--outdir", partial], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  if (built.exitCode !== 0) throw new Error(`cannot bundle the CLI: ${built.stderr.toString()}${built.stdout.toString()}`);
  try {
    renameSync(partial, dir);
  } catch {
    // Another run put the same build in place first.
    rmSync(partial, { recursive: true, force: true });
  }
  pruneOld(key);
  return out;
}

/** The CLI's entry point: run it as `[process.execPath, CLI, ...args]`. */
export const CLI = buildCli();

/** The environment without any chainwatch variable of the developer's shell, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("CHAINWATCH_")) env[k] = v;
  return { ...env, ...extra };
}

/** A `chainwatch serve` child process that logged `listening`; `log` resolves with its whole stdout once it exits. */
export type ServeProcess = { proc: Subprocess<"ignore", "pipe", "pipe">; log: Promise<string> };

/**
 * Spawns `serve --config <config>` (no --config when null: the environment's and the flags' config
 * alone) with `args` in `cwd` and resolves once it logs `listening` (its stdout keeps being read, so
 * it never blocks on a full pipe); rejects with its output if it exits first. The caller stops it by
 * its pid (`proc.kill`).
 */
export async function startServe(config: string | null, cwd: string, env = cleanEnv(), args: string[] = []): Promise<ServeProcess> {
  const proc = Bun.spawn([process.execPath, CLI, "serve", ...(config === null ? [] : ["--config", config]), ...args], { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let log = "";
  while (!log.includes('"msg":"listening"')) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`serve exited: ${log}${await new Response(proc.stderr).text()}`);
    log += decoder.decode(value, { stream: true });
  }
  const rest = (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return log;
      log += decoder.decode(value, { stream: true });
    }
  })();
  return { proc, log: rest };
}
