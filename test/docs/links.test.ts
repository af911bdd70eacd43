import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { anchorsOf, linksOf, markdownPages, ROOT, slug } from "./markdown.ts";

const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** Why a relative link does not resolve, or null when it does. */
function broken(from: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // https:, mailto: and the like leave the repository
  const [path, anchor] = target.split("#", 2) as [string, string | undefined];
  const file = path === "" ? from : normalize(join(dirname(from), decodeURIComponent(path)));
  if (file.startsWith("..")) return `${target} leaves the repository`;
  if (!existsSync(join(ROOT, file))) return `${target}: no file ${file}`;
  if (anchor === undefined || anchor === "") return null;
  if (!file.endsWith(".md")) return `${target}: ${file} has no headings to point at`;
  return anchorsOf(read(file)).has(anchor) ? null : `${target}: ${file} has no heading with the anchor #${anchor}`;
}

describe("links in README.md and docs/", () => {
  test.each(markdownPages())("every relative link and #anchor of %s resolves", (page) => {
    const problems = linksOf(read(page))
      .map(({ target, line }) => ({ line, why: broken(page, target) }))
      .filter((p) => p.why !== null)
      .map((p) => `${page}:${p.line}: ${p.why}`);
    expect(problems).toEqual([]);
  });
});

describe("GitHub's heading anchors", () => {
  test.each([
    ["Quick start", "quick-start"],
    ["`[networks.<slug>]`", "networksslug"],
    ["`keys create`", "keys-create"],
    ["JSON-RPC (`POST /rpc/{network}`)", "json-rpc-post-rpcnetwork"],
    ["Reorgs and confirmations", "reorgs-and-confirmations"],
    ["Signing in: `/cabinet/`", "signing-in-cabinet"],
    ["snake_case stays", "snake_case-stays"],
  ])("%s → #%s", (heading, anchor) => {
    expect(slug(heading)).toBe(anchor);
  });

  test("a repeated heading gets -1, -2", () => {
    expect([...anchorsOf("# A\n## Notes\n## Notes\n```\n# not a heading\n```\n## Notes\n")]).toEqual(["a", "notes", "notes-1", "notes-2"]);
  });
});
