import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig, parseConfig } from "../../src/config/load.ts";

const unit = await Bun.file(join(import.meta.dir, "../../docs/chainwatch.service")).text();
/** The value of each `Key=value` line outside comments (the last one wins, as in systemd). */
const directives = new Map(
  unit
    .split("\n")
    .filter((l) => /^[A-Za-z]+=/.test(l))
    .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)] as [string, string]),
);

describe("docs/chainwatch.service", () => {
  test.each([
    ["User", "chainwatch"],
    ["StateDirectory", "chainwatch"],
    ["ProtectSystem", "strict"],
    ["NoNewPrivileges", "yes"],
    ["Restart", "on-failure"],
    ["KillSignal", "SIGTERM"],
  ])("sets %s=%s", (key, value) => {
    expect(directives.get(key)).toBe(value);
  });

  test("gives SIGTERM more time than delivery.shutdown_grace_ms before SIGKILL", () => {
    const defaults = parseConfig({}, "defaults");
    if (!defaults.ok) throw new Error(defaults.error);
    const stopSeconds = Number(/^(\d+)s$/.exec(directives.get("TimeoutStopSec") ?? "")?.[1]);
    expect(stopSeconds * 1000).toBeGreaterThan(defaults.config.delivery.shutdown_grace_ms);
    expect(unit).toContain(`delivery.shutdown_grace_ms (default ${defaults.config.delivery.shutdown_grace_ms} ms)`);
  });

  test("runs serve with no config file: its settings are CHAINWATCH_ variables, files in the state directory", () => {
    expect(directives.get("ExecStart")).toBe("/usr/local/bin/chainwatch serve");
    const env = Object.fromEntries(
      unit
        .split("\n")
        .filter((l) => l.startsWith("Environment="))
        .map((l) => l.slice("Environment=".length).split(/=(.*)/s).slice(0, 2) as [string, string]),
    );
    const loaded = loadConfig(null, env);
    if (!loaded.ok) throw new Error(loaded.error);
    expect(loaded.config.database.url).toBe(`sqlite:///var/lib/${directives.get("StateDirectory")}/chainwatch.db`);
    expect(loaded.config.secrets.master_key_file).toBe(`/var/lib/${directives.get("StateDirectory")}/master.key`);
    expect(loaded.config.server).toMatchObject({ host: "127.0.0.1", port: 8787 });
    // The admin commands of the header comment open the same database with the same key.
    const header = unit.slice(0, unit.indexOf("[Unit]"));
    for (const name of ["CHAINWATCH_DATABASE__URL", "CHAINWATCH_SECRETS__MASTER_KEY_FILE"]) expect(header).toContain(`${name}=${env[name]} `);
  });
});
