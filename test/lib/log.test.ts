import { describe, expect, test } from "bun:test";
import { jsonLogger, LOG_LEVELS, type LogLevel } from "../../src/lib/log.ts";

function capture(level: LogLevel) {
  const lines: string[] = [];
  const log = jsonLogger((l) => lines.push(l), () => Date.UTC(2026, 10, 23, 9, 0, 0), level);
  for (const at of LOG_LEVELS) log[at](`${at} line`, { n: 1 });
  return lines.map((l) => JSON.parse(l).level);
}

describe("jsonLogger levels ([log] level)", () => {
  test.each([
    ["debug", ["debug", "info", "warn", "error"]],
    ["info", ["info", "warn", "error"]],
    ["warn", ["warn", "error"]],
    ["error", ["error"]],
  ] as [LogLevel, string[]][])("at %p it writes %p", (level, written) => {
    expect(capture(level)).toEqual(written);
  });

  test("the default level is info", () => {
    const lines: string[] = [];
    const log = jsonLogger((l) => lines.push(l));
    log.debug("hidden");
    log.info("shown");
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(["shown"]);
  });

  test("a line is one JSON object with time, level, msg and the fields", () => {
    const lines: string[] = [];
    jsonLogger((l) => lines.push(l), () => Date.UTC(2026, 10, 23, 9, 0, 0), "debug").debug("request refused", { status: 401 });
    expect(lines).toEqual(['{"time":"2026-11-23T09:00:00.000Z","level":"debug","msg":"request refused","status":401}\n']);
  });
});
