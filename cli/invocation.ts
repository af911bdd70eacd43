import type { ArgDef, CommandDef } from "citty";
import { closest } from "../src/lib/nearest-name.ts";
import { UsageError } from "./globals.ts";

/** The command an argv names, with its full word path (`["chainwatch", "keys", "create"]`). */
export type Invocation = { cmd: CommandDef; path: string[]; rest: string[] };

/** A command as citty takes it: the definition, a promise of it, or a function making either. */
export type Resolvable<T> = T | Promise<T> | (() => T | Promise<T>);

type Subcommands = Record<string, Resolvable<CommandDef>>;

/** The definition behind a lazily loaded subcommand. */
export async function resolveCommand(cmd: Resolvable<CommandDef>): Promise<CommandDef> {
  return typeof cmd === "function" ? await cmd() : await cmd;
}

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
    const entry = subs[word];
    if (!entry) {
      const hint = closest(word, Object.keys(subs));
      const where = path.length > 1 ? ` of ${path.join(" ")}` : "";
      throw new UsageError(`unknown command ${word}${where}${hint ? `; did you mean ${hint}?` : ""}`);
    }
    cmd = await resolveCommand(entry);
    path.push(word);
    i++;
  }
  const rest = argv.slice(i);
  checkArgs(rest, ((await cmd.args) ?? {}) as Record<string, ArgDef>, path);
  return { cmd, path, rest };
}

/**
 * Flags that may be given more than once, each value counting (`--allow-ip a --allow-ip b`). Any
 * other flag given twice is a usage error: citty would keep only the last value, so
 * `accounts credit shop --add 5 --add 6` would quietly add 6.
 */
const REPEATABLE_FLAGS = new Set(["allow-ip"]);

/** The words of a command's own argv (after its name): flags, their values and positionals. */
function checkArgs(rest: string[], defs: Record<string, ArgDef>, path: string[]): void {
  const flags = new Map<string, ArgDef>();
  for (const [name, def] of Object.entries(defs)) if (def.type !== "positional") flags.set(name, def);
  const positionals = Object.entries(defs).filter(([, d]) => d.type === "positional").map(([n]) => n);
  const given = new Set<string>();
  const once = (flag: string) => {
    if (given.has(flag) && !REPEATABLE_FLAGS.has(flag)) throw new UsageError(`--${flag} is given more than once`);
    given.add(flag);
  };
  let seenPositionals = 0;
  const positional = (word: string) => {
    seenPositionals++;
    if (seenPositionals > positionals.length) throw new UsageError(`unexpected argument ${word} for ${path.join(" ")}`);
    // An empty word is no name, id or file: citty would pass it on, and `--account ""` would mean "every account".
    if (word === "") throw new UsageError(`${positionals[seenPositionals - 1].toUpperCase()} must not be empty`);
  };
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i];
    if (word === "--") {
      for (const w of rest.slice(i + 1)) positional(w);
      break;
    }
    if (!word.startsWith("-") || word === "-") {
      positional(word);
      continue;
    }
    const [flag, inline] = splitFlag(word);
    const def = word.startsWith("--") ? flags.get(flag) : undefined;
    const negated = word.startsWith("--no-") ? flags.get(flag.slice(3)) : undefined;
    if (negated?.type === "boolean" && inline === undefined) {
      once(flag.slice(3));
      continue;
    }
    if (!def) throw unknownFlag(word, path, [...flags.keys()]);
    once(flag);
    if (def.type === "boolean") {
      if (inline !== undefined && inline !== "true" && inline !== "false") throw new UsageError(`--${flag} takes no value`);
      continue;
    }
    // A string flag takes the next word as its value (citty does too, even one starting with "-").
    if (inline === undefined && i + 1 >= rest.length) throw new UsageError(`--${flag} needs a value`);
    const value = inline ?? rest[++i];
    if (value === "") throw new UsageError(`--${flag} must not be empty`);
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
