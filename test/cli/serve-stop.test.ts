import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testDatabaseUrl } from "../support/harness.ts";
import { CLI, cleanEnv } from "../support/cli.ts";

// `chainwatch serve` as an operator's service manager runs it: a child process on a temporary
// config, stopped with a signal. It must exit 0 on its own, and "stopped" must be its last word.
let dir: string;
let config: string;
const started: Subprocess[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-serve-stop-"));
  config = join(dir, "chainwatch.toml");
  const lines = ["[server]", 'host = "127.0.0.1"', "port = 0", "[database]", `url = "${testDatabaseUrl(dir)}"`, "[secrets]", `master_key_file = "${dir}/master.key"`, ""];
  writeFileSync(config, lines.join("\n"));
});

afterAll(async () => {
  for (const p of started) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  await Promise.all(started.map((p) => p.exited));
  rmSync(dir, { recursive: true, force: true });
});

/** Starts serve and resolves once its log has a line with `msg`; the rest of the log keeps being read. */
async function serveUntil(msg: string) {
  const proc = Bun.spawn([process.execPath, CLI, "serve", "--config", config], { cwd: dir, env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  started.push(proc);
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let log = "";
  while (!log.includes(`"msg":"${msg}"`)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`serve exited before "${msg}": ${log}${await new Response(proc.stderr).text()}`);
    log += decoder.decode(value, { stream: true });
  }
  const rest = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return log;
      log += decoder.decode(value, { stream: true });
    }
  })();
  return { proc, log: rest };
}

const messages = (log: string) =>
  log
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l).msg as string);

describe("serve stops on a signal", () => {
  test("SIGTERM: exit 0, and 'stopped' is the last log line", async () => {
    const { proc, log } = await serveUntil("database");
    proc.kill("SIGTERM");
    // A generous bound: a daemon that lingers fails here instead of hanging the suite.
    const code = await Promise.race([proc.exited, Bun.sleep(20_000).then(() => "still running")]);
    expect(code).toBe(0);
    const msgs = messages(await log);
    expect(msgs.slice(-2)).toEqual(["shutting down", "stopped"]);
    expect(await new Response(proc.stderr).text()).toBe("");
  }, 30_000);

  test("SIGINT too", async () => {
    const { proc, log } = await serveUntil("database");
    proc.kill("SIGINT");
    expect(await proc.exited).toBe(0);
    const lines = (await log).trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({ level: "info", msg: "stopped" });
    expect(lines.find((l) => l.msg === "shutting down")).toMatchObject({ signal: "SIGINT" });
  }, 30_000);

  test("a SIGTERM that comes while serve is still starting lets it finish starting, then stops cleanly", async () => {
    // "listening" is logged before start-up is over (the database line follows).
    const { proc, log } = await serveUntil("listening");
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    const msgs = messages(await log);
    expect(msgs.at(-1)).toBe("stopped");
    expect(msgs).toContain("shutting down");
  }, 30_000);
});
