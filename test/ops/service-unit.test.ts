import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { parseConfig } from "../../src/config/load.ts";

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

  test("runs serve with an absolute config path", () => {
    expect(directives.get("ExecStart")).toMatch(/^\/\S+ serve --config \/etc\/chainwatch\/chainwatch\.toml$/);
  });
});
