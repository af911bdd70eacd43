import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./markdown.ts";

// Text in the repository speaks for itself: it may point at a file the repository has, never at a
// document a reader cannot open (a design note, a specification kept elsewhere) or a numbered
// section of one.
const CITATIONS: [RegExp, string][] = [
  [/\bDESIGN\b/, "a design document"],
  [/\bservice-spec\b/i, "a service specification"],
  [/\bthe spec\b/i, "a specification"],
  [/\b(?:the |a )seed\b(?! phrase)|\bseed (?:document|§|section)/i, "a seed document"],
  [/§\s*\d/, "a numbered section"],
];

const SCANNED = ["README.md", "config.example.toml", "docs", "src", "cli"];
const TEXT = /\.(md|ts|toml|service|sh|json|html|css)$/;

function files(path: string): string[] {
  if (!statSync(join(ROOT, path)).isDirectory()) return [path];
  return readdirSync(join(ROOT, path)).flatMap((name) => files(`${path}/${name}`));
}

/** Every line of `text` that cites a document outside the repository, as `path:line: what (the line)`. */
function citations(path: string, text: string): string[] {
  const out: string[] = [];
  text.split("\n").forEach((line, i) => {
    for (const [pattern, what] of CITATIONS)
      if (pattern.test(line)) out.push(`${path}:${i + 1}: cites ${what}: ${line.trim().slice(0, 160)}`);
  });
  return out;
}

describe("no text cites a document that is not in the repository", () => {
  test.each(SCANNED)("%s", (path) => {
    const found = files(path)
      .filter((f) => TEXT.test(f))
      .flatMap((f) => citations(f, readFileSync(join(ROOT, f), "utf8")));
    expect(found).toEqual([]);
  });

  test.each([
    ["as DESIGN §4 says", 2],
    ["see the seed, section 3", 1],
    ["(service-spec.md)", 1],
    ["docs/reference.md §9", 1],
  ])("finds %p", (line, count) => {
    expect(citations("x", line as string)).toHaveLength(count as number);
  });

  test.each(["see docs/webhooks.md", "function hex(seed: number)", "the JSON-RPC specification asks", "a seed phrase"])("lets %p pass", (line) => {
    expect(citations("x", line)).toEqual([]);
  });
});
