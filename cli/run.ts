import { type CommandDef, renderUsage, runCommand } from "citty";
import { VERSION } from "../src/version.ts";
import { type CliIo, liftGlobals, processIo, UsageError } from "./globals.ts";
import { checkInvocation, type Resolvable, resolveCommand } from "./invocation.ts";
import { rootCommand } from "./root.ts";

/** The command a word path names (`keys create` → that command) and its full name, for --help. */
async function commandAt(root: CommandDef, words: string[]): Promise<{ cmd: CommandDef; path: string[] }> {
  let cmd = root;
  const path = ["chainwatch"];
  for (const w of words) {
    const subs = (await cmd.subCommands) as Record<string, Resolvable<CommandDef>> | undefined;
    if (!subs || !(w in subs)) break;
    cmd = await resolveCommand(subs[w]);
    path.push(w);
  }
  return { cmd, path };
}

/** Usage text; citty prints only the last two words of the name, so its parent is the full prefix. */
async function usageOf(root: CommandDef, words: string[], colour: boolean): Promise<string> {
  const { cmd, path } = await commandAt(root, words);
  const parent = path.length > 1 ? { meta: { name: path.slice(0, -1).join(" "), version: VERSION } } : undefined;
  const text = await renderUsage(cmd, parent);
  return colour ? text : stripAnsi(text);
}

/** Words longer than this in an error are cut: a 5,000-character value echoed back buries the reason. */
const LONGEST_WORD = 120;

/**
 * An error as the one line a failure prints: line breaks become spaces, and a word past
 * LONGEST_WORD characters (a pasted value, a path) keeps its start and says how long it was.
 */
function oneLine(message: string): string {
  return message
    .replace(/\s*[\r\n]+\s*/g, " ")
    .replace(new RegExp(`\\S{${LONGEST_WORD + 1},}`, "g"), (w) => `${w.slice(0, 60)}… (${w.length} characters)`);
}

const stripAnsi = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, "").replace(/ +$/gm, "");

/** Colour only for a person at a terminal who has not asked for none (https://no-color.org). */
function wantsColour(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  return stream.isTTY === true && !env.NO_COLOR && env.TERM !== "dumb";
}

/**
 * Runs one invocation of `chainwatch` with `argv` (the words after the program name) writing to
 * `io`, and answers its exit code: 0 done, 1 the command failed, 2 a usage mistake. The binary runs
 * it with the process's streams; tests run commands other than `serve` in-process with their own.
 */
export async function runCli(argv: string[], io: CliIo = processIo()): Promise<number> {
  let root: CommandDef | undefined;
  try {
    const { globals, rest, lifted } = liftGlobals(argv, io);
    root = rootCommand(globals);
    if (rest.includes("--version") && rest.length === 1) {
      io.stdout.write(`${VERSION}\n`);
      return 0;
    }
    if (rest.length === 0 || rest.includes("--help") || rest.includes("-h")) {
      const words = rest.filter((a) => !a.startsWith("-"));
      io.stdout.write(`${await usageOf(root, words, wantsColour(io.stdout, io.env))}\n`);
      return rest.length === 0 ? 2 : 0;
    }
    const { cmd, path } = await checkInvocation(root, rest);
    const own = ((await cmd.args) ?? {}) as Record<string, unknown>;
    for (const flag of lifted) if (!(flag in own)) throw new UsageError(`${path.join(" ")} does not take --${flag}`);
    await runCommand(root, { rawArgs: rest });
    return 0;
  } catch (error) {
    const usage = error instanceof UsageError || (error as Error).name === "CLIError";
    const message = (error as Error).message ?? String(error);
    io.stderr.write(`chainwatch: ${oneLine(stripAnsi(message))}${usage ? " (see --help)" : ""}\n`);
    return usage ? 2 : 1;
  }
}
