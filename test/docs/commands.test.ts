import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { liftGlobals, processIo } from "../../cli/globals.ts";
import { checkInvocation } from "../../cli/invocation.ts";
import { rootCommand } from "../../cli/root.ts";
import { markdownPages, ROOT, splitFences } from "./markdown.ts";

// Every `chainwatch …` line of a shell block in the README and docs/ is checked in-process against the
// command tree the binary runs (cli/root.ts), with the same check the binary makes before running a
// command: the subcommand exists, its flags are its own, it has no word too many.

const SHELL = new Set(["", "sh", "bash", "shell", "console"]);
/** How a line may start the CLI: the alias, the checkout's entry point, the built binary. */
const INVOKE = /^(?:\$\s+)?(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:sudo\s+(?:-u\s+\S+\s+)?)?(chainwatch|bun cli\/index\.ts|\.\/dist\/chainwatch|\/usr\/local\/bin\/chainwatch)\s+(.*)$/;

/** Shell words of one command: quotes removed, `$(…)` and `${…}` kept whole, stopping at `#`, `|`, `;`, `&`, `>`. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      word += line.slice(i + 1, end < 0 ? undefined : end);
      inWord = true;
      i = end < 0 ? line.length : end;
    } else if (c === "$" && (line[i + 1] === "(" || line[i + 1] === "{")) {
      const close = line[i + 1] === "(" ? ")" : "}";
      let depth = 0;
      let j = i + 1;
      for (; j < line.length; j++) {
        if (line[j] === line[i + 1]) depth++;
        else if (line[j] === close && --depth === 0) break;
      }
      word += line.slice(i, j + 1);
      inWord = true;
      i = j;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else if ((c === "#" && !inWord) || c === "|" || c === ";" || c === "&" || c === ">" || c === "<") break;
    else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

type CommandLine = { where: string; words: string[] };

/** Every CLI invocation in the shell blocks of a page, continuation lines joined. */
function commandLines(page: string, text: string): CommandLine[] {
  const out: CommandLine[] = [];
  for (const fence of splitFences(text).fences) {
    if (!SHELL.has(fence.info.split(/\s/)[0])) continue;
    for (let i = 0; i < fence.lines.length; i++) {
      const start = fence.lines[i];
      let line = start.text.trim();
      while (line.endsWith("\\") && i + 1 < fence.lines.length) line = `${line.slice(0, -1)} ${fence.lines[++i].text.trim()}`;
      const m = INVOKE.exec(line);
      if (m) out.push({ where: `${page}:${start.line}: ${line}`, words: shellWords(m[2]) });
    }
  }
  return out;
}

/** Null when the CLI would accept the words, else what it would say. */
async function refusal(words: string[]): Promise<string | null> {
  try {
    const { rest } = liftGlobals(words);
    const root = rootCommand({ json: false, create: false, io: processIo() });
    // --help is answered before any other check; it needs only the command path to exist.
    const help = rest.includes("--help") || rest.includes("-h");
    await checkInvocation(root, help ? rest.filter((w) => w !== "--help" && w !== "-h" && !w.startsWith("-")) : rest);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

const lines = markdownPages().flatMap((page) => commandLines(page, readFileSync(join(ROOT, page), "utf8")));

describe("chainwatch command lines in README.md and docs/", () => {
  test("the pages show the command line at all", () => {
    expect(lines.length).toBeGreaterThan(10);
  });

  test.each(lines.map((l) => [l.where, l.words] as const))("%s", async (_where, words) => {
    expect(await refusal([...words])).toBeNull();
  });

  test.each([
    ["keys create --account shop --allowip 10.0.0.1", "unknown flag --allowip"],
    ["deliveries recover --acount shop --since 24h", "unknown flag --acount"],
    ["acounts list", "unknown command acounts"],
    ["backup a.db b.db", "unexpected argument b.db"],
  ])("refuses `chainwatch %s`", async (line, message) => {
    expect(await refusal(shellWords(line))).toContain(message);
  });

  test("reads shell words as the shell does", () => {
    expect(shellWords(`backup /b/cw-$(date +%F).db   # nightly`)).toEqual(["backup", "/b/cw-$(date +%F).db"]);
    expect(shellWords(`webhook set --account shop --url "http://127.0.0.1:9000/a b" | jq .`)).toEqual(["webhook", "set", "--account", "shop", "--url", "http://127.0.0.1:9000/a b"]);
  });
});
