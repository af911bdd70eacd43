// Reading the repository's Markdown the way GitHub renders it, for the docs tests: fenced code blocks
// apart from prose, headings and their anchors, links.
import { readdirSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "../..");

/** README.md and every Markdown page under docs/, as paths from the repository root. */
export function markdownPages(): string[] {
  return ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)].sort();
}

export type Fence = { info: string; lines: { text: string; line: number }[] };

/** The page split into prose lines (fences blanked out, so line numbers stay) and its fenced code blocks. */
export function splitFences(text: string): { prose: string[]; fences: Fence[] } {
  const prose: string[] = [];
  const fences: Fence[] = [];
  let open: { marker: string; fence: Fence } | undefined;
  text.split("\n").forEach((line, i) => {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (open) {
      if (m && m[1][0] === open.marker[0] && m[1].length >= open.marker.length && m[2].trim() === "") open = undefined;
      else open.fence.lines.push({ text: line, line: i + 1 });
      prose.push("");
    } else if (m) {
      open = { marker: m[1], fence: { info: m[2].trim(), lines: [] } };
      fences.push(open.fence);
      prose.push("");
    } else prose.push(line);
  });
  return { prose, fences };
}

/** GitHub's anchor for a heading's text: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // links and images: their text
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith("`") ? part.slice(1, -1) : part.replace(/<[^>]+>/g, "").replace(/[*~]/g, ""))) // code spans are text; HTML is not
    .join("")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "").replace(/ /g, "-");
}

/** Every anchor a page offers: its headings' slugs (repeats get -1, -2…) and explicit `id`/`name` attributes. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of splitFences(text).prose) {
    const h = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = slug(h[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const a of line.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(a[1]);
  }
  return anchors;
}

/** Every link target in a page's prose (Markdown links and images, `src`/`href` attributes), with its line. */
export function linksOf(text: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  splitFences(text).prose.forEach((raw, i) => {
    const line = raw.replace(/`[^`]*`/g, ""); // code spans are text, not links
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ target: m[1], line: i + 1 });
    for (const m of line.matchAll(/\b(?:src|href)="([^"]+)"/g)) out.push({ target: m[1], line: i + 1 });
  });
  return out;
}
