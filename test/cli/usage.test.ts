import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closest, editDistance } from "../../src/lib/nearest-name.ts";
import { CLI, cleanEnv } from "../support/cli.ts";
import { onPostgres, ownSqliteFile } from "../support/postgres-only.ts";

// How the CLI treats mistakes in the way it is called, and how its help reads, as a user sees it:
// separate CLI processes (test/support/cli.ts), piped or on a pseudo-terminal.
let dir: string;
let config: string;

async function cli(args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn([process.execPath, CLI, ...args], { cwd: dir, env: cleanEnv(env), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Runs the CLI on a pseudo-terminal (isTTY on stdout and stderr) and returns everything it wrote. */
async function onTerminal(args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  let output = "";
  const decoder = new TextDecoder();
  const proc = Bun.spawn([process.execPath, CLI, ...args], {
    cwd: dir,
    env,
    terminal: { cols: 200, rows: 50, data: (_t, data) => (output += decoder.decode(data, { stream: true })) },
  });
  const code = await proc.exited;
  proc.terminal?.close();
  return { code, output };
}

/** A terminal's environment with colour allowed: no NO_COLOR, CI or TEST (citty turns colour off for those). */
function colourEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = cleanEnv({ TERM: "xterm-256color", ...extra });
  for (const k of ["NO_COLOR", "CI", "TEST", "FORCE_COLOR"]) if (!(k in extra)) delete env[k];
  return env;
}

beforeAll(async () => {
  if (onPostgres) return;
  dir = mkdtempSync(join(tmpdir(), "chainwatch-usage-"));
  config = join(dir, "cw.toml");
  writeFileSync(
    config,
    `[database]\nurl = "sqlite://${dir}/cw.db"\n[secrets]\nmaster_key_file = "${dir}/master.key"\n[delivery]\nallow_private_targets = true\n`,
  );
  expect((await cli(["migrate", "--config", config])).code).toBe(0);
  expect((await cli(["accounts", "create", "shop", "--config", config])).code).toBe(0);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(onPostgres)(ownSqliteFile("mistyped flags and commands are usage errors (exit 2) that name the mistake"), () => {
  test.each([
    [["keys", "create", "--account", "shop", "--allowip", "10.0.0.1"], "unknown flag --allowip for chainwatch keys create; did you mean --allow-ip?"],
    [["accounts", "create", "y", "--credit", "500"], "unknown flag --credit for chainwatch accounts create; did you mean --credits?"],
    [["accounts", "create", "y", "--credit=500"], "unknown flag --credit for chainwatch accounts create; did you mean --credits?"],
    [["keys", "list", "--acount", "shop"], "unknown flag --acount for chainwatch keys list; did you mean --account?"],
    [["keys", "list", "--jsn"], "unknown flag --jsn for chainwatch keys list; did you mean --json?"],
    [["keys", "list", "--frobnicate"], "unknown flag --frobnicate for chainwatch keys list"],
    [["keys", "list", "-a", "shop"], "unknown flag -a for chainwatch keys list"],
    [["acounts", "list"], "unknown command acounts; did you mean accounts?"],
    [["keys", "crate", "--account", "shop"], "unknown command crate of chainwatch keys; did you mean create?"],
    [["keys", "--account", "shop", "create"], "unknown flag --account for chainwatch keys"],
    [["keys"], "keys needs a command: create, list, revoke"],
    [["plans", "set", "x", "--slots", "1", "extra"], "unexpected argument extra for chainwatch plans set"],
    [["keys", "list", "--account"], "--account needs a value"],
    [["webhook", "set", "--account", "shop", "--url", "https://example.com/h", "--enabled=yes"], "--enabled takes no value"],
  ])("%p", async (args, message) => {
    const r = await cli([...args, "--config", config]);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 2, stdout: "", stderr: `chainwatch: ${message} (see --help)\n` });
  });

  test("a mistyped flag changes nothing: no key is created without the allowlist the user meant", async () => {
    await cli(["keys", "create", "--account", "shop", "--allowip", "10.0.0.1", "--config", config]);
    await cli(["accounts", "create", "y", "--credit", "500", "--config", config]);
    const keys = JSON.parse((await cli(["keys", "list", "--json", "--config", config])).stdout);
    const accounts = JSON.parse((await cli(["accounts", "list", "--json", "--config", config])).stdout);
    expect(keys.keys).toEqual([]);
    expect(accounts.accounts.map((a: { name: string }) => a.name)).toEqual(["shop"]);
  });

  test("flags that exist still work in every spelling: --flag value, --flag=value, --no-flag", async () => {
    const url = "http://127.0.0.1:9/hook";
    const on = await cli(["webhook", "set", "--account=shop", "--url", url, "--enabled", "--json", "--config", config]);
    const off = await cli(["webhook", "set", "--account", "shop", `--url=${url}`, "--no-enabled", "--json", "--config", config]);
    expect([on.code, JSON.parse(on.stdout).enabled, off.code, JSON.parse(off.stdout).enabled]).toEqual([0, true, 0, false]);
  });
});

describe.skipIf(onPostgres)(ownSqliteFile("suggestions"), () => {
  test.each([
    ["allowip", ["account", "allow-ip", "label"], "allow-ip"],
    ["credit", ["plan", "credits"], "credits"],
    ["acc", ["account", "allow-ip"], "account"],
    ["lable", ["account", "label"], "label"],
    ["zzz", ["account", "label"], undefined],
    ["x", ["json", "config"], undefined],
  ])("closest(%p) among %p is %p", (word, candidates, expected) => {
    expect(closest(word, candidates)).toBe(expected);
  });

  test("edit distance counts a swap of neighbours as one edit", () => {
    expect([editDistance("lable", "label"), editDistance("abc", "abc"), editDistance("", "ab"), editDistance("kitten", "sitting")]).toEqual([1, 0, 2, 3]);
  });
});

describe.skipIf(onPostgres)(ownSqliteFile("help"), () => {
  test("piped, help has no colour codes, and a sub-command's usage carries the chainwatch prefix", async () => {
    const r = await cli(["keys", "create", "--help"], { FORCE_COLOR: "1" });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("\x1b[");
    expect(r.stdout).toContain("USAGE chainwatch keys create [OPTIONS] --account=<account>");
    expect(r.stdout).toContain("(chainwatch keys create v0.1.0)");
  });

  test("a parent command's help names the full command too", async () => {
    const r = await cli(["keys", "--help"]);
    expect(r.stdout).toContain("USAGE chainwatch keys create|list|revoke");
    expect(r.stdout).toContain("Use chainwatch keys <command> --help for more information about a command.");
  });

  test("on a terminal help is coloured, unless NO_COLOR is set", async () => {
    const coloured = await onTerminal(["keys", "create", "--help"], colourEnv());
    const plain = await onTerminal(["keys", "create", "--help"], colourEnv({ NO_COLOR: "1" }));
    expect([coloured.code, plain.code]).toEqual([0, 0]);
    expect(coloured.output).toContain("\x1b[");
    expect(plain.output).not.toContain("\x1b[");
    expect(plain.output).toContain("USAGE chainwatch keys create");
  });
});
