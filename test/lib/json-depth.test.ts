import { describe, expect, it } from "bun:test";
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from "../../src/lib/json-depth.ts";

const nested = (levels: number, open = "[", close = "]") => open.repeat(levels) + close.repeat(levels);

describe("jsonNestsDeeperThan", () => {
  it.each([
    ["64 nested arrays", nested(64), false],
    ["65 nested arrays", nested(65), true],
    ["65 nested objects", '{"a":'.repeat(65) + "1" + "}".repeat(65), true],
    ["64 levels mixing arrays and objects", '[{"a":'.repeat(32) + "1" + "}]".repeat(32), false],
    ["65 unclosed openers (what JSON.parse builds before it fails)", "[".repeat(65), true],
    ["siblings do not add up", "[" + "[],".repeat(1000) + "[]]", false],
  ])("%s", (_, text, deep) => {
    expect(jsonNestsDeeperThan(text)).toBe(deep);
  });

  it("does not count brackets inside strings, escaped quotes included", () => {
    const inString = JSON.stringify({ s: "[".repeat(500) + '\\"' + "{".repeat(500) });
    expect(jsonNestsDeeperThan(inString)).toBe(false);
    expect(JSON.parse(inString).s.length).toBe(1002);
  });

  it("sees the brackets after a string ending in an escaped backslash", () => {
    const text = '["\\\\",' + nested(MAX_JSON_DEPTH) + "]";
    expect(JSON.parse(text)).toBeArray();
    expect(jsonNestsDeeperThan(text)).toBe(true);
  });

  it("takes a bound of its own", () => {
    expect(jsonNestsDeeperThan(nested(3), 2)).toBe(true);
    expect(jsonNestsDeeperThan(nested(2), 2)).toBe(false);
  });

  it("answers for an unterminated string without reading past the text", () => {
    expect(jsonNestsDeeperThan('["' + "[".repeat(100))).toBe(false);
  });
});
