import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../delivery/fixtures.ts";
import { CLI, cleanEnv, startServe } from "../support/cli.ts";
import { freePort } from "../support/free-port.ts";

// serve as a service manager or a container runs it: no config file, its settings from
// CHAINWATCH_* variables and its own flags (--host, --port, --database), which win over them.
let dir: string;
const started: Subprocess[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-serve-settings-"));
});

afterAll(async () => {
  for (const p of started) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  await Promise.all(started.map((p) => p.exited));
  rmSync(dir, { recursive: true, force: true });
});

/** The variables of a daemon whose every file lives in `dir/name`, and no config file. */
function environment(name: string, extra: Record<string, string> = {}): Record<string, string> {
  return cleanEnv({
    CHAINWATCH_DATABASE__URL: `sqlite://${join(dir, name, "chainwatch.db")}`,
    CHAINWATCH_SECRETS__MASTER_KEY_FILE: join(dir, name, "master.key"),
    ...extra,
  });
}

/** The URL a serve's `listening` line names. */
const listeningUrl = (log: string) => (JSON.parse(log.split("\n").find((l) => l.includes('"msg":"listening"')) as string) as { url: string }).url;

describe("serve's settings from the environment and its flags", () => {
  test("serve --help lists the flags that mean something to serve, and only those", async () => {
    const { code, stdout } = await runCli(["serve", "--help"]);
    expect(code).toBe(0);
    expect([...stdout.matchAll(/^\s+(--[a-z-]+)=?/gm)].map((m) => m[1])).toEqual(["--config", "--host", "--port", "--database"]);
  });

  test.each([
    [["serve", "--json"], "chainwatch: chainwatch serve does not take --json (see --help)\n"],
    [["serve", "--create"], "chainwatch: chainwatch serve does not take --create (see --help)\n"],
    [["serve", "--port", "http"], "chainwatch: --port must be a port number, 0 to 65535 (see --help)\n"],
    [["serve", "--port", "65536"], "chainwatch: --port must be a port number, 0 to 65535 (see --help)\n"],
  ])("%p is a usage error", async (argv, stderr) => {
    expect(await runCli(argv)).toEqual({ code: 2, stdout: "", stderr });
  });

  test("with no file, the variables say where to listen and what to open", async () => {
    const port = freePort();
    const { proc, log } = await startServe(null, dir, environment("env-only", { CHAINWATCH_SERVER__PORT: String(port) }));
    started.push(proc);
    expect(await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()).toEqual({ ok: true });
    expect(existsSync(join(dir, "env-only", "chainwatch.db"))).toBe(true);
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    expect(listeningUrl(await log)).toBe(`http://127.0.0.1:${port}/`);
  });

  test("--port and --database win over their variables", async () => {
    const port = freePort();
    const env = environment("flags", { CHAINWATCH_SERVER__PORT: "1", CHAINWATCH_DATABASE__URL: "sqlite:///nonexistent/folder/x.db" });
    const { proc, log } = await startServe(null, dir, env, ["--port", String(port), "--database", `sqlite://${join(dir, "flags", "chainwatch.db")}`]);
    started.push(proc);
    expect(existsSync(join(dir, "flags", "chainwatch.db"))).toBe(true);
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    expect(listeningUrl(await log)).toBe(`http://127.0.0.1:${port}/`);
  });

  test("a port in use stops serve naming the port and the three ways to change it", async () => {
    const holder = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("someone else") });
    try {
      const proc = Bun.spawn([process.execPath, CLI, "serve", "--port", String(holder.port)], { cwd: dir, env: environment("busy"), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      started.push(proc);
      const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
      expect({ code, stderr }).toEqual({
        code: 1,
        stderr: `chainwatch: cannot listen on 127.0.0.1:${holder.port}: port ${holder.port} is in use (another chainwatch serve, or another program); choose another with serve --port, the config key server.port or $CHAINWATCH_SERVER__PORT\n`,
      });
    } finally {
      holder.stop(true);
    }
  });

  test("a mistyped variable stops serve before anything is opened, naming the one meant", async () => {
    const proc = Bun.spawn([process.execPath, CLI, "serve"], { cwd: dir, env: environment("typo", { CHAINWATCH_SERVER_PORT: "9000" }), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    started.push(proc);
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect({ code, stderr }).toEqual({
      code: 1,
      stderr: "chainwatch: unknown environment variable CHAINWATCH_SERVER_PORT: no config key is named so; did you mean CHAINWATCH_SERVER__PORT?\n",
    });
    expect(existsSync(join(dir, "typo"))).toBe(false);
  });
});
