import type { ArgDef, CommandDef } from "citty";
import { UsageError } from "./globals.ts";

/** The command an argv names, with its full word path (`["chainwatch", "keys", "create"]`). */
export type Invocation = { cmd: CommandDef; path: string[]; rest: string[] };

type Subcommands = Record<string, CommandDef>;

async function subcommandsOf(cmd: CommandDef): Promise<Subcommands | undefined> {
  const subs = (await cmd.subCommands) as Subcommands | undefined;
  return subs && Object.keys(subs).length > 0 ? subs : undefined;
}

/**
 * Walks argv down the command tree the way citty will (the first word that is not a flag names
 * the subcommand) and checks every flag and word against the command it reaches: citty itself
 * ignores unknown flags, so `keys create --allowip 10.0.0.1` would create a key open to every IP.
 * Throws a UsageError naming the mistake, with the nearest known name when one is close.
 */
export async function checkInvocation(root: CommandDef, argv: string[]): Promise<Invocation> {
  let cmd = root;
  const path = [commandName(root)];
  let i = 0;
  for (let subs = await subcommandsOf(cmd); subs; subs = await subcommandsOf(cmd)) {
    const word = argv[i];
    if (word === undefined) throw new UsageError(`${path.slice(1).join(" ")} needs a command: ${Object.keys(subs).join(", ")}`);
    if (word.startsWith("-")) throw unknownFlag(word, path, []);
    const next = subs[word];
    if (!next) {
      const hint = closest(word, Object.keys(subs));
      const where = path.length > 1 ? ` of ${path.join(" ")}` : "";
      throw new UsageError(`unknown command ${word}${where}${hint ? `; did you mean ${hint}?` : ""}`);
    }
    cmd = next;
    path.push(word);
    i++;
  }
  const rest = argv.slice(i);
  checkArgs(rest, ((await cmd.args) ?? {}) as Record<string, ArgDef>, path);
  return { cmd, path, rest };
}

/** The words of a command's own argv (after its name): flags, their values and positionals. */
function checkArgs(rest: string[], defs: Record<string, ArgDef>, path: string[]): void {
  const flags = new Map<string, ArgDef>();
  for (const [name, def] of Object.entries(defs)) if (def.type !== "positional") flags.set(name, def);
  const positionals = Object.entries(defs).filter(([, d]) => d.type === "positional").map(([n]) => n);
  let seenPositionals = 0;
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i];
    if (word === "--") {
      seenPositionals += rest.length - i - 1;
      break;
    }
    if (!word.startsWith("-") || word === "-") {
      seenPositionals++;
      if (seenPositionals > positionals.length) throw new UsageError(`unexpected argument ${word} for ${path.join(" ")}`);
      continue;
    }
    const [flag, inline] = splitFlag(word);
    const def = word.startsWith("--") ? flags.get(flag) : undefined;
    const negated = word.startsWith("--no-") ? flags.get(flag.slice(3)) : undefined;
    if (negated?.type === "boolean" && inline === undefined) continue;
    if (!def) throw unknownFlag(word, path, [...flags.keys()]);
    if (def.type === "boolean") {
      if (inline !== undefined && inline !== "true" && inline !== "false") throw new UsageError(`--${flag} takes no value`);
      continue;
    }
    // A string flag takes the next word as its value (citty does too, even one starting with "-").
    if (inline !== undefined) continue;
    if (i + 1 >= rest.length) throw new UsageError(`--${flag} needs a value`);
    i++;
  }
}

/** `--name=value` → ["name", "value"]; `--name` → ["name", undefined]. */
function splitFlag(word: string): [string, string | undefined] {
  const body = word.replace(/^-{1,2}/, "");
  const eq = body.indexOf("=");
  return eq < 0 ? [body, undefined] : [body.slice(0, eq), body.slice(eq + 1)];
}

function unknownFlag(word: string, path: string[], known: string[]): UsageError {
  const [flag] = splitFlag(word);
  const hint = closest(flag, known);
  return new UsageError(`unknown flag ${word.split("=")[0]} for ${path.join(" ")}${hint ? `; did you mean --${hint}?` : ""}`);
}

function commandName(cmd: CommandDef): string {
  return (cmd.meta as { name?: string } | undefined)?.name ?? "chainwatch";
}

/**
 * The candidate nearest to `word` when it is plausibly a typo of it: within a third of the
 * candidate's length in edit distance (at least 1, at most 3), or a prefix of it.
 */
export function closest(word: string, candidates: string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = name.startsWith(word) && word.length >= 2 ? 0.5 : editDistance(word.toLowerCase(), name.toLowerCase());
    const allowed = Math.min(3, Math.max(1, Math.floor(name.length / 3)));
    if (distance <= allowed && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Levenshtein distance with adjacent transpositions counted as one edit. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}
