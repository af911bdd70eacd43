import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { copyFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cleanEnv } from "../support/cli.ts";
import { onPostgres, ownSqliteFile } from "../support/postgres-only.ts";
import { ROOT } from "./markdown.ts";
import { readmeSteps, type Step } from "./readme-steps.ts";
import { freePort } from "../support/free-port.ts";

// The README, run: every shell block in order, as a reader would in a fresh clone (a copy of this
// checkout's files, sharing its installed node_modules), with its daemons, receiver and node in the
// background and stopped by their pids at the end (test/docs/readme-steps.ts reads the
// conventions). Foreground blocks share one shell, as the reader's second shell does (the alias,
// API_KEY and SECRET carry over); each must succeed.
//
// The README's ports (8787 for the daemon, 9000 for the receiver, 8545 for anvil) are swapped for
// free ones, and the daemon's default port is set to the first with CHAINWATCH_SERVER__PORT, so
// the walk-through never meets another program on this machine.

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const STEPS = readmeSteps(README);
const PORTS = ["8787", "9000", "8545"];
const SLOW = 180_000;

/** Every pid under `pid` (its children, theirs, …), deepest first. */
function descendants(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const task of tasks) {
    let children = "";
    try {
      children = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8");
    } catch {
      continue;
    }
    for (const child of children.trim().split(/\s+/).filter(Boolean).map(Number)) out.push(...descendants(child), child);
  }
  return out;
}

/** Whether a pid still runs (a zombie has let go of everything: it counts as gone). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Sends SIGTERM to `pid` and everything under it, by pid, and waits until they are gone (SIGKILL after 15 s). */
async function stopTree(pid: number): Promise<void> {
  const pids = [...descendants(pid), pid];
  for (const p of pids) if (running(p)) process.kill(p, "SIGTERM");
  const deadline = Date.now() + 15_000;
  while (pids.some(running) && Date.now() < deadline) await Bun.sleep(50);
  for (const p of pids) if (running(p)) process.kill(p, "SIGKILL");
}

/** The tracked and new files of the checkout, as a fresh clone would have them, and its node_modules by link. */
async function copyCheckout(to: string): Promise<void> {
  const listed = Bun.spawnSync(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, stdout: "pipe" });
  if (listed.exitCode !== 0) throw new Error("git ls-files failed");
  const files = listed.stdout.toString().split("\0").filter((f) => f !== "" && existsSync(join(ROOT, f)));
  for (const dir of new Set(files.map((f) => dirname(join(to, f))))) mkdirSync(dir, { recursive: true });
  await Promise.all(files.map((f) => copyFile(join(ROOT, f), join(to, f))));
  symlinkSync(join(ROOT, "node_modules"), join(to, "node_modules"));
}

/** The reader's shell: one bash, fed a block at a time, that stops at the first command that fails. */
class ReaderShell {
  readonly proc: Subprocess<"pipe", "pipe", "pipe">;
  private out = "";
  private ended = false;
  private waiting: (() => void) | null = null;

  constructor(
    readonly dir: string,
    env: Record<string, string>,
  ) {
    const proc = Bun.spawn(["bash", "--noprofile", "--norc"], { cwd: dir, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    this.proc = proc;
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of proc.stdout) {
        this.out += decoder.decode(chunk, { stream: true });
        this.waiting?.();
      }
      this.ended = true;
      this.waiting?.();
    })();
    mkdirSync(join(dir, ".readme-test"));
    this.send("set -eo pipefail; shopt -s expand_aliases");
  }

  private send(line: string): void {
    this.proc.stdin.write(`${line}\n`);
    this.proc.stdin.flush();
  }

  /**
   * Writes `script` beside the others, runs the command `how` makes of its file in this shell, then
   * echoes `answer` (the exit status, or a background job's pid): resolves with what it echoed.
   */
  async source(n: number, script: string, how: (file: string) => string, answer = "$?"): Promise<string> {
    const file = `.readme-test/step-${n}.sh`;
    writeFileSync(join(this.dir, file), `${script}\n`);
    const done = `__readme_step_${n}__`;
    this.send(how(file));
    this.send(`echo "${done} ${answer}"`);
    for (;;) {
      const at = this.out.indexOf(done);
      if (at >= 0 && this.out.indexOf("\n", at) > 0) {
        const line = this.out.slice(at + done.length, this.out.indexOf("\n", at)).trim();
        this.out = this.out.slice(this.out.indexOf("\n", at) + 1);
        return line;
      }
      if (this.ended) throw new Error(`the shell stopped at step ${n}: ${await new Response(this.proc.stderr).text()}`);
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
      });
    }
  }
}

const log = (dir: string, name: string) => {
  const path = join(dir, ".readme-test", `${name}.log`);
  return existsSync(path) ? readFileSync(path, "utf8") : "";
};

let dir: string;
let shell: ReaderShell;
const ports = new Map<string, string>();
const background = new Map<string, number>();

/** The README's text with its ports swapped for this run's. */
const withPorts = (text: string) => text.replace(new RegExp(`\\b(${PORTS.join("|")})\\b`, "g"), (p) => ports.get(p) as string);

async function ready(step: Extract<Step, { kind: "background" }>, pid: number): Promise<void> {
  const url = withPorts(step.readyUrl);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (!running(pid)) throw new Error(`README.md:${step.line}: ${step.name} exited before ${url} answered:\n${log(dir, step.name)}`);
    const answered = await fetch(url, { signal: AbortSignal.timeout(1000) }).then(
      () => true,
      () => false,
    );
    if (answered) return;
    await Bun.sleep(100);
  }
  throw new Error(`README.md:${step.line}: ${url} did not answer within 60 s:\n${log(dir, step.name)}`);
}

async function play(step: Step, n: number): Promise<void> {
  switch (step.kind) {
    case "skip":
      return;
    case "file":
      writeFileSync(join(dir, step.path), withPorts(step.content));
      return;
    case "run": {
      const status = await shell.source(n, withPorts(step.script), (f) => `source ${f} < /dev/null > .readme-test/step-${n}.log 2>&1`);
      if (status !== "0") throw new Error(`README.md:${step.line}: the block exited ${status}:\n${log(dir, `step-${n}`)}`);
      return;
    }
    case "background": {
      if (background.has(step.name) && running(background.get(step.name) as number)) throw new Error(`README.md:${step.line}: ${step.name} is already running`);
      // A subshell of the reader's shell: it has the alias and the variables, as the reader's other shells would have them set.
      const pid = Number(await shell.source(n, withPorts(step.script), (f) => `(source ${f}) < /dev/null >> .readme-test/${step.name}.log 2>&1 &`, "$!"));
      background.set(step.name, pid);
      await ready(step, pid);
      return;
    }
    case "stop": {
      const pid = background.get(step.name);
      if (pid === undefined) throw new Error(`README.md:${step.line}: nothing called ${step.name} runs`);
      await stopTree(pid);
      background.delete(step.name);
      return;
    }
    case "expect": {
      const deadline = Date.now() + 30_000;
      while (!log(dir, step.name).includes(step.text)) {
        if (Date.now() > deadline) throw new Error(`README.md:${step.line}: ${step.name} never printed ${JSON.stringify(step.text)}:\n${log(dir, step.name)}`);
        await Bun.sleep(100);
      }
    }
  }
}

beforeAll(async () => {
  if (onPostgres) return;
  dir = mkdtempSync(join(tmpdir(), "chainwatch-readme-"));
  await copyCheckout(dir);
  for (const p of PORTS) ports.set(p, String(freePort()));
  const path = `${dirname(process.execPath)}:${process.env.PATH ?? ""}`;
  shell = new ReaderShell(dir, cleanEnv({ PATH: path, NO_COLOR: "1", CHAINWATCH_SERVER__PORT: ports.get("8787") as string }));
});

afterAll(async () => {
  // Everything the walk-through started is under the shell: stopped by pid, deepest first.
  if (shell) await stopTree(shell.proc.pid);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(onPostgres)(ownSqliteFile("README.md, run in order on a fresh copy of the checkout"), () => {
  test("every block is run, written, or left out for a reason; and those left out are few", () => {
    const skipped = STEPS.filter((s) => s.kind === "skip");
    expect(STEPS.filter((s) => s.kind === "run").length).toBeGreaterThan(10);
    // The suite itself and a PostgreSQL install: keep this list this short.
    expect(skipped.length).toBeLessThanOrEqual(2);
    for (const s of skipped) expect(s.kind === "skip" && s.reason.length).toBeGreaterThan(20);
  });

  test(
    "each block succeeds, each daemon answers, each receiver prints what the text says",
    async () => {
      for (const [n, step] of STEPS.entries()) await play(step, n);
      // Whatever still runs in the background is alive at the end: none of them died along the way.
      for (const [name, pid] of background) expect({ name, running: running(pid) }).toEqual({ name, running: true });
    },
    SLOW,
  );
});

describe("the conventions", () => {
  test("a comment before a block governs it; stop and expect stand alone", () => {
    const text = [
      "<!-- readme-test: background serve until http://127.0.0.1:8787/healthz -->",
      "```sh",
      "bun cli/index.ts serve",
      "```",
      "```toml",
      "[a]",
      "```",
      '<!-- readme-test: expect serve "a \\"b\\"" -->',
      "<!-- readme-test: stop serve -->",
      "<!-- readme-test: skip: for a reason -->",
      "```sh",
      "rm -rf /",
      "```",
      "<!-- readme-test: file a.ts -->",
      "```ts",
      "x",
      "```",
    ].join("\n");
    expect(readmeSteps(text)).toEqual([
      { kind: "background", line: 2, script: "bun cli/index.ts serve", name: "serve", readyUrl: "http://127.0.0.1:8787/healthz" },
      { kind: "expect", line: 8, name: "serve", text: 'a "b"' },
      { kind: "stop", line: 9, name: "serve" },
      { kind: "skip", line: 11, reason: "for a reason", script: "rm -rf /" },
      { kind: "file", line: 15, path: "a.ts", content: "x\n" },
    ]);
  });

  test.each([
    ["<!-- readme-test: backgrund x until y -->\n```sh\nx\n```\n", 'README.md:2: "readme-test: backgrund x until y" does not fit a ```sh block'],
    ["<!-- readme-test: skip: a -->\n", "README.md:1: a readme-test comment with no block after it"],
  ])("refuses %p", (text, message) => {
    expect(() => readmeSteps(text)).toThrow(message);
  });
});
