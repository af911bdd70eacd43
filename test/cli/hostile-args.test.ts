import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ArgDef, type CommandDef, parseArgs } from "citty";
import { type CliIo, liftGlobals, processIo } from "../../cli/globals.ts";
import { flagOverrides, serveArgs } from "../../cli/commands/serve.ts";
import { configFor } from "../../cli/context.ts";
import { checkInvocation, type Resolvable, resolveCommand } from "../../cli/invocation.ts";
import { rootCommand } from "../../cli/root.ts";
import { runCli } from "../../cli/run.ts";
import { onPostgres, ownSqliteFile } from "../support/postgres-only.ts";

// Every command and subcommand of the CLI, found by walking cli/root.ts's tree (a new command is
// covered the day it is added), called with hostile values for each of its flags and positionals,
// a required one left out, a flag it does not take, a flag given twice and a word too many. Each
// refused run must exit non-zero with one clear line on stderr, print nothing on stdout, and leave
// the database and the working folder exactly as they were. In-process (cli/run.ts) over one
// migrated SQLite file; a run the command accepts is undone by copying the database back.

/** A command: its own flags and positionals, and which of the shared flags (--config, --json, --create) it takes. */
type Leaf = { path: string[]; options: [string, ArgDef][]; positionals: [string, ArgDef][]; globals: string[] };

/** The flags commands share (--config, --json, --create): lifted out of argv before the command sees it. */
const GLOBAL_FLAGS = new Set(["config", "json", "create"]);

/** Commands that start something long-running: only their argument checking is exercised, never a run. */
const LONG_RUNNING = new Set(["serve"]);

async function leavesOf(cmd: CommandDef, path: string[]): Promise<Leaf[]> {
  const subs = (await cmd.subCommands) as Record<string, Resolvable<CommandDef>> | undefined;
  if (subs && Object.keys(subs).length > 0) {
    const out: Leaf[] = [];
    for (const [name, sub] of Object.entries(subs)) out.push(...(await leavesOf(await resolveCommand(sub), [...path, name])));
    return out;
  }
  const defs = Object.entries(((await cmd.args) ?? {}) as Record<string, ArgDef>);
  return [
    {
      path,
      options: defs.filter(([n, d]) => d.type !== "positional" && !GLOBAL_FLAGS.has(n)),
      positionals: defs.filter(([, d]) => d.type === "positional"),
      globals: defs.filter(([n]) => GLOBAL_FLAGS.has(n)).map(([n]) => n),
    },
  ];
}

const LEAVES = await leavesOf(rootCommand(liftGlobals([], processIo()).globals), []);

const HOSTILE: Record<string, string> = {
  empty: "",
  "-1": "-1",
  "0": "0",
  "1.5": "1.5",
  "1e999": "1e999",
  NaN: "NaN",
  "5000 characters": "x".repeat(5000),
  unicode: "ünïcødé-名前-💥",
  "../../etc/passwd": "../../etc/passwd",
  "a word": "several",
  "a number": "42",
  "unknown account id": "acc_nope",
  "random UUID": crypto.randomUUID(),
};

/**
 * A call each command accepts (placeholders in braces are filled in once the database is seeded);
 * each hostile case changes one thing in it. A command missing here fails the first test, and is
 * still swept, from a call that gives every required flag and argument the word `x`.
 */
const VALID: Record<string, string[]> = {
  serve: [],
  migrate: [],
  "plans set": ["basic", "--slots", "5"],
  "plans list": [],
  "accounts create": ["newcomer", "--plan", "basic"],
  "accounts list": [],
  "accounts show": ["shop"],
  "accounts credit": ["shop", "--add", "5"],
  "accounts set-plan": ["shop", "basic"],
  "accounts disable": ["shop"],
  "accounts enable": ["shop"],
  "accounts delete": ["shop", "--purge"],
  "keys create": ["--account", "shop"],
  "keys list": [],
  "keys revoke": ["{api_key}"],
  ingest: ["{block_file}"],
  "watches add": ["--account", "shop", "--network", "eth", "{address_list}"],
  "watches remove": ["--account", "shop", "{watch_list}"],
  "webhook set": ["--account", "shop", "--url", "http://127.0.0.1:9/hook"],
  "webhook rotate-secret": ["--account", "shop"],
  "webhook test": ["--account", "shop", "--event", "block", "--network", "eth"],
  "webhook endpoints list": ["--account", "shop"],
  "webhook endpoints add": ["--account", "shop", "--url", "http://127.0.0.1:9/other"],
  "webhook endpoints set": ["{endpoint_id}", "--account", "shop", "--description", "audit"],
  "webhook endpoints remove": ["{endpoint_id}", "--account", "shop"],
  "webhook endpoints rotate": ["{endpoint_id}", "--account", "shop"],
  "webhook endpoints test": ["{endpoint_id}", "--account", "shop", "--event", "block", "--network", "eth"],
  "payments wallet set": ["--account", "shop", "--network", "tron", "--key", "{xpub}"],
  "payments wallet list": ["--account", "shop"],
  "payments wallet remove": ["--account", "shop", "--network", "eth"],
  "deliveries list": [],
  "deliveries retry": ["{delivery_id}"],
  "deliveries recover": ["--account", "shop", "--since", "1h"],
  "cabinet link": ["--account", "shop"],
  "follow status": [],
  "follow rewind": ["eth", "--to", "0"],
  backup: ["{new_file}"],
  restore: ["{backup_file}"],
  version: [],
};

/**
 * Hostile values a command rightly accepts (a plan may be named `42`; a backup may be written to a
 * file named `0`): these must be accepted, every other hostile value refused.
 */
const ACCEPTED: Record<string, string[]> = {
  // Names a resolver may know, and IP literals: whether one is this machine's is found when serve listens.
  "serve --host": ["-1", "0", "1.5", "1e999", "NaN", "a word", "a number", "unknown account id", "random UUID"],
  // 0: any free port.
  "serve --port": ["0", "a number"],
  "plans set <name>": ["0", "1e999", "a word", "a number", "unknown account id"],
  "plans set --slots": ["0", "a number"],
  "plans set --rpc-rps": ["0", "a number"],
  "plans set --monthly-credits": ["0", "a number"],
  "accounts create <name>": ["0", "1.5", "1e999", "NaN", "a word", "a number", "random UUID"],
  "accounts create --credits": ["0", "a number"],
  "accounts credit --add": ["a number"],
  "keys create --label": ["-1", "0", "1.5", "1e999", "NaN", "unicode", "../../etc/passwd", "a word", "a number", "unknown account id", "random UUID"],
  "webhook set --max-rps": ["0", "a number"],
  "plans set --max-endpoints": ["a number"],
  "webhook endpoints add --max-rps": ["0", "a number"],
  "webhook endpoints set --max-rps": ["0", "a number"],
  // A description is free text (up to 200 characters).
  "webhook endpoints add --description": ["-1", "0", "1.5", "1e999", "NaN", "unicode", "../../etc/passwd", "a word", "a number", "unknown account id", "random UUID"],
  "webhook endpoints set --description": ["-1", "0", "1.5", "1e999", "NaN", "unicode", "../../etc/passwd", "a word", "a number", "unknown account id", "random UUID"],
  "webhook endpoints rotate --grace": ["0"],
  "payments wallet set --gap-limit": ["a number"],
  // 0 ends the old secret at once; a bare number of seconds is a duration too.
  "webhook rotate-secret --grace": ["0"],
  "cabinet link --ttl": ["a number"],
  "deliveries list --limit": ["a number"],
  "follow rewind --to": ["0", "a number"],
  "backup <file>": ["0", "1.5", "1e999", "NaN", "unicode", "a word", "a number", "unknown account id", "random UUID"],
  // `version` reads no config, so a --config naming no file does not stop it.
  "version --config": ["0", "1.5", "1e999", "NaN", "5000 characters", "unicode", "../../etc/passwd", "a word", "a number", "unknown account id", "random UUID"],
};

/**
 * A call to make, and whether the command must refuse it (else it must accept it); `names`: the
 * flag a refusal must name (or echo the value given it).
 */
type Case = { name: string; argv: string[]; refuse: boolean; names?: string };

const flagsOf = (leaf: Leaf) => new Set(leaf.options.map(([n]) => n));

/** `argv` with flag `--name`'s value replaced by (or, when absent, given as) `value`. */
function withFlag(argv: string[], name: string, value: string): string[] {
  const at = argv.indexOf(`--${name}`);
  return at < 0 ? [...argv, `--${name}`, value] : [...argv.slice(0, at), `--${name}`, value, ...argv.slice(at + 2)];
}

function withoutFlag(argv: string[], name: string): string[] {
  const at = argv.indexOf(`--${name}`);
  return at < 0 ? argv : [...argv.slice(0, at), ...argv.slice(at + 2)];
}

/** The indexes of the positional words of a valid call, in order. */
function positionalIndexes(argv: string[], leaf: Leaf): number[] {
  const flags = flagsOf(leaf);
  const out: number[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i].startsWith("--")) {
      const name = argv[i].slice(2);
      if (flags.has(name) && leaf.options.find(([n]) => n === name)?.[1].type !== "boolean") i++;
      continue;
    }
    out.push(i);
  }
  return out;
}

function casesOf(leaf: Leaf): Case[] {
  const key = leaf.path.join(" ");
  const valid = VALID[key] ?? [
    ...leaf.positionals.filter(([, d]) => d.required).map(() => "x"),
    ...leaf.options.filter(([, d]) => d.required).flatMap(([n]) => [`--${n}`, "x"]),
  ];
  const cases: Case[] = [];
  for (const [name, def] of leaf.options) {
    const accepted = ACCEPTED[`${key} --${name}`] ?? [];
    if (def.type === "boolean") {
      for (const [label, value] of Object.entries(HOSTILE))
        cases.push({ name: `--${name}=${label}`, argv: [...valid, `--${name}=${value}`], refuse: true, names: `--${name}` });
      cases.push({ name: `--${name} twice`, argv: [...valid, `--${name}`, `--no-${name}`], refuse: true, names: `--${name}` });
      continue;
    }
    for (const [label, value] of Object.entries(HOSTILE))
      cases.push({ name: `--${name} ${label}`, argv: withFlag(valid, name, value), refuse: !accepted.includes(label), names: `--${name}` });
    if (def.required) cases.push({ name: `--${name} left out`, argv: withoutFlag(valid, name), refuse: true, names: `--${name}` });
    cases.push({ name: `--${name} with no value`, argv: [...withoutFlag(valid, name), `--${name}`], refuse: true, names: `--${name}` });
    const given = valid.includes(`--${name}`) ? valid[valid.indexOf(`--${name}`) + 1] : "42";
    cases.push({ name: `--${name} twice`, argv: [...withFlag(valid, name, given), `--${name}`, given], refuse: true, names: `--${name}` });
  }
  const at = positionalIndexes(valid, leaf);
  leaf.positionals.forEach(([name, def], p) => {
    const accepted = ACCEPTED[`${key} <${name}>`] ?? [];
    const i = at[p];
    if (i === undefined) return;
    for (const [label, value] of Object.entries(HOSTILE))
      cases.push({ name: `<${name}> ${label}`, argv: valid.map((w, j) => (j === i ? value : w)), refuse: !accepted.includes(label) });
    if (def.required) cases.push({ name: `<${name}> left out`, argv: valid.filter((_, j) => j < i), refuse: true, names: name.toUpperCase() });
  });
  cases.push({ name: "a word too many", argv: [...valid, "extra"], refuse: true, names: "extra" });
  cases.push({ name: "an unknown flag", argv: [...valid, "--frobnicate", "1"], refuse: true, names: "--frobnicate" });
  cases.push({ name: "an unknown short flag", argv: [...valid, "-x"], refuse: true, names: "-x" });
  const configAccepted = ACCEPTED[`${key} --config`] ?? [];
  for (const [label, value] of Object.entries(HOSTILE))
    cases.push({ name: `--config ${label}`, argv: [...valid, "--config", value], refuse: !configAccepted.includes(label), names: "--config" });
  cases.push({ name: "--config twice", argv: [...valid, "--config", "{config}", "--config", "{config}"], refuse: true, names: "--config" });
  for (const flag of ["json", "create"])
    for (const [label, value] of Object.entries(HOSTILE))
      cases.push({ name: `--${flag}=${label}`, argv: [...valid, `--${flag}=${value}`], refuse: true, names: `--${flag}` });
  return cases;
}

let dir: string;
let config: string;
let pristine: string;
let pristineFiles: Set<string>;
const seeded: Record<string, string> = {};
let seededRows: Record<string, string>;
let seededBytes: string;

function io(): { io: CliIo; out: () => { stdout: string; stderr: string } } {
  let stdout = "";
  let stderr = "";
  return {
    io: { stdout: { write: (t: string) => void (stdout += t) }, stderr: { write: (t: string) => void (stderr += t) }, env: {} },
    out: () => ({ stdout, stderr }),
  };
}

/** Runs the CLI in-process with `--config` pointing at the test database (unless the case gives its own). */
async function cli(argv: string[]) {
  const { io: sink, out } = io();
  const args = argv.includes("--config") ? argv : [...argv, "--config", config];
  const code = await runCli(args, sink);
  return { code, ...out() };
}

async function seed(argv: string[]): Promise<Record<string, unknown>> {
  const r = await cli([...argv, "--json"]);
  if (r.code !== 0) throw new Error(`${argv.join(" ")}: exit ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const dbFile = () => join(dir, "cw.db");

/**
 * The database's two files as the file system sees them. undo() leaves the seeded file with a
 * modification time of 1970 and no -wal file, so a write to either since (SQLite writes with
 * write(), which sets the time to now; the open's chmod moves only the change time) shows here
 * however coarse the file system's clock. The same inode, size and time: every row is as seeded,
 * the common case, checked without reading the files. Anything else is judged row by row (dump).
 */
function fingerprint(): string {
  return [dbFile(), `${dbFile()}-wal`]
    .map((file) => {
      const s = statSync(file, { bigint: true, throwIfNoEntry: false });
      return s ? `${s.ino}:${s.size}:${s.mtimeNs}` : "-";
    })
    .join(" ");
}

/** Every row of every table, as text: what a refused command must leave exactly as it was. */
function dump(): Record<string, string> {
  // Read-write, though it only reads: closing it then removes the -wal and -shm files a reader leaves.
  const db = new Database(dbFile());
  try {
    const tables = db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[];
    return Object.fromEntries(tables.map(({ name }) => [name, JSON.stringify(db.query(`SELECT * FROM "${name}"`).all())]));
  } finally {
    db.close();
  }
}

/** Puts the seeded database back and removes files a run created (an accepted backup, a restore's copy of the old file). */
function undo(): void {
  for (const f of readdirSync(dir)) if (!pristineFiles.has(f)) rmSync(join(dir, f), { recursive: true, force: true });
  for (const suffix of ["-wal", "-shm"]) rmSync(`${dbFile()}${suffix}`, { force: true });
  copyFileSync(pristine, dbFile());
  utimesSync(dbFile(), 0, 0);
  seededBytes = fingerprint();
}

const fill = (argv: string[]) => argv.map((w) => w.replace(/\{(\w+)\}/g, (_, k: string) => seeded[k] ?? `{${k}}`));

const cwd = process.cwd();

/**
 * A new folder, in memory where the system has one: some 400 of the runs open and close the
 * database, and on a disk each close waits for the disk to flush (20 ms, against 2 in memory).
 */
function scratchFolder(): string {
  try {
    return mkdtempSync("/dev/shm/chainwatch-hostile-");
  } catch {
    return mkdtempSync(join(tmpdir(), "chainwatch-hostile-"));
  }
}

beforeAll(async () => {
  if (onPostgres) return;
  dir = scratchFolder();
  // Hostile file names (`0`, `../../etc/passwd`) are relative: they land in, or climb out of, this folder.
  process.chdir(dir);
  config = join(dir, "cw.toml");
  writeFileSync(
    config,
    `[database]\nurl = "sqlite://${dbFile()}"\n[secrets]\nmaster_key_file = "${dir}/master.key"\n[delivery]\nallow_private_targets = true\n`,
  );
  await seed(["migrate"]);
  await seed(["plans", "set", "basic", "--slots", "5"]);
  await seed(["accounts", "create", "shop", "--plan", "basic", "--credits", "10"]);
  seeded.api_key = String((await seed(["keys", "create", "--account", "shop"])).api_key);
  await seed(["webhook", "set", "--account", "shop", "--url", "http://127.0.0.1:9/hook", "--enabled"]);
  // An account-level xpub (m/44'/60'/0' of the BIP-39 test phrase "abandon … about"), a wallet on eth to remove.
  seeded.xpub = "xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt";
  await seed(["payments", "wallet", "set", "--account", "shop", "--network", "eth", "--key", seeded.xpub]);
  seeded.delivery_id = String((await seed(["webhook", "test", "--account", "shop", "--event", "block", "--network", "eth"])).delivery_id);
  seeded.endpoint_id = String((await seed(["webhook", "endpoints", "add", "--account", "shop", "--url", "http://127.0.0.1:9/second"])).endpoint_id);
  seeded.block_file = join(dir, "block.json");
  writeFileSync(seeded.block_file, JSON.stringify({ network: "eth", height: 1, hash: "0xb1", transactions: [] }));
  // A list of one address to watch, and a list of the id of a watch already there to remove.
  seeded.address_list = join(dir, "addresses.txt");
  writeFileSync(seeded.address_list, "0x00000000000000000000000000000000000000a1\n");
  writeFileSync(join(dir, "watched.txt"), "0x00000000000000000000000000000000000000a2\n");
  const watched = (await seed(["watches", "add", "--account", "shop", "--network", "eth", join(dir, "watched.txt")])) as unknown as { results: { watch_id: string }[] };
  seeded.watch_list = join(dir, "watch-ids.txt");
  writeFileSync(seeded.watch_list, `${watched.results[0].watch_id}\n`);
  seeded.backup_file = join(dir, "good-backup.db");
  await seed(["backup", seeded.backup_file]);
  seeded.new_file = "new-backup.db";
  pristine = join(dir, "pristine.db");
  copyFileSync(dbFile(), pristine);
  pristineFiles = new Set(readdirSync(dir).filter((f) => !f.endsWith("-wal") && !f.endsWith("-shm")));
  undo();
  seeded.config = config;
  seededRows = dump();
  // Closing dump's connection may have touched the file: the seeded state is the copy again.
  undo();
});

afterAll(() => {
  process.chdir(cwd);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Whether `text` is one JSON document. */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** What must never reach an operator's terminal: stack frames, unset values, raw SQL errors. */
const LEAKS: [RegExp, string][] = [
  [/^\s+at .+|\.ts:\d+/m, "a stack trace"],
  [/\bundefined\b/, "undefined"],
  [/\[object \w+\]/, "[object …]"],
  [/SQLITE_[A-Z]|constraint failed|no such (table|column)|syntax error|near "/i, "raw SQL error text"],
  [/\b(TypeError|ReferenceError|RangeError|SyntaxError)\b/, "a JavaScript error name"],
  [/\b(NaN|Infinity)\b/, "a number that is none"],
];

function problems(c: Case, argv: string[], r: { code: number; stdout: string; stderr: string }, json: boolean, changed: string[]): string[] {
  const out: string[] = [];
  const refused = r.code !== 0;
  if (c.refuse && !refused) out.push("accepted, but should be refused");
  if (!c.refuse && refused) out.push("refused, but should be accepted");
  if (refused) {
    if (r.code !== 1 && r.code !== 2) out.push(`exit ${r.code}, not 1 or 2`);
    if (r.stdout !== "") out.push(`printed on stdout: ${r.stdout.slice(0, 200)}`);
    const lines = r.stderr.split("\n").filter((l) => l !== "");
    if (lines.length !== 1) out.push(`${lines.length} lines on stderr, not one`);
    if (!r.stderr.startsWith("chainwatch: ")) out.push("stderr does not start with `chainwatch: `");
    if (r.stderr.length > 400) out.push(`a ${r.stderr.length}-character line on stderr`);
    if (changed.length > 0) out.push(`changed the database: ${changed.join(", ")}`);
    const value = c.names ? argv[argv.indexOf(c.names) + 1] : undefined;
    const echoed = value !== undefined && value !== "" && r.stderr.includes(value.slice(0, 20));
    if (c.names && !r.stderr.includes(c.names) && !echoed) out.push(`stderr names neither ${c.names} nor its value`);
  }
  for (const [pattern, what] of LEAKS) {
    // "NaN" or "undefined" given as a value may be echoed back.
    if (pattern.test(r.stderr) && !argv.some((a) => a !== "" && pattern.test(a))) out.push(`${what} on stderr`);
    if (pattern.test(r.stdout) && !argv.some((a) => a !== "" && pattern.test(a))) out.push(`${what} on stdout`);
  }
  if (json && r.stdout !== "" && !isJson(r.stdout)) out.push("--json printed something that is not JSON");
  return out.length === 0 ? [] : [`${r.code} ${JSON.stringify(r.stderr.slice(0, 300))}: ${out.join("; ")}`];
}

/** Whether `serve` would get past its checks and start: its hostile cases are run only when it would not. */
async function wouldStart(argv: string[]): Promise<boolean> {
  try {
    const { globals, rest, lifted } = liftGlobals(argv.includes("--config") ? argv : [...argv, "--config", config]);
    const { cmd } = await checkInvocation(rootCommand(globals), rest);
    const own = ((await cmd.args) ?? {}) as Record<string, unknown>;
    if (lifted.some((flag) => !(flag in own))) return false;
    configFor(globals, flagOverrides(parseArgs(rest.slice(1), serveArgs) as { host?: string; port?: string; database?: string }));
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs each case with --json (the stricter output rule: one JSON document or nothing), and a case
 * the command accepts also without, and collects every broken rule as one line naming the case.
 */
async function sweep(leaf: Leaf, cases: Case[]): Promise<string[]> {
  const failures: string[] = [];
  for (const c of cases) {
    for (const json of leaf.globals.includes("json") ? [true, false] : [false]) {
      const argv = [...leaf.path, ...fill(c.argv), ...(json ? ["--json"] : [])];
      const name = `${c.name}${json ? " --json" : ""}`;
      if (LONG_RUNNING.has(leaf.path[0]) && (await wouldStart(argv))) {
        if (c.refuse) failures.push(`${name}: would start ${leaf.path.join(" ")}; its argument check lets it through`);
        break;
      }
      const r = await cli(argv);
      if (r.code === 0) {
        // An accepted run may change what it likes: only its output is judged, and it is undone.
        failures.push(...problems(c, argv, r, json, []).map((f) => `${name}: ${f}`));
        undo();
        continue;
      }
      const same = fingerprint() === seededBytes;
      const after = same ? seededRows : dump();
      const changed = Object.keys(after).filter((t) => after[t] !== seededRows[t]);
      const created = readdirSync(dir).filter((f) => !pristineFiles.has(f));
      const found = problems(c, argv, r, json, [...changed, ...created.map((f) => `file ${f}`)]);
      failures.push(...found.map((f) => `${name}: ${f}`));
      if (!same || created.length > 0) undo();
      // A refusal takes the same path with or without --json, up to the output it never reaches.
      break;
    }
  }
  return failures;
}

describe.skipIf(onPostgres)(ownSqliteFile("every command refuses hostile arguments with one clear line and changes nothing"), () => {
  test("the sweep finds the command tree, and knows a call each command accepts", () => {
    expect(LEAVES.map((l) => l.path.join(" "))).toContain("keys create");
    expect(LEAVES.length).toBeGreaterThan(20);
    // A new command: add a call it accepts to VALID (and, if it runs until stopped, its name to LONG_RUNNING).
    expect(LEAVES.map((l) => l.path.join(" ")).filter((k) => !(k in VALID))).toEqual([]);
  });

  for (const leaf of LEAVES) {
    const key = leaf.path.join(" ");
    test(`${key}`, async () => {
      // The valid call itself works (else every case would be refused for the wrong reason).
      if (!LONG_RUNNING.has(leaf.path[0]) && VALID[key]) {
        const r = await cli([...leaf.path, ...fill(VALID[key]), "--json"]);
        undo();
        expect({ code: r.code, stderr: r.stderr.split("\n")[0] }).toMatchObject({ code: 0 });
      }
      expect(await sweep(leaf, casesOf(leaf))).toEqual([]);
    });
  }
});

describe.skipIf(onPostgres)(ownSqliteFile("--json"), () => {
  for (const leaf of LEAVES.filter((l) => !LONG_RUNNING.has(l.path[0]))) {
    const key = leaf.path.join(" ");
    test(`${key}: --json, --json=true and --no-json --json print one JSON document`, async () => {
      for (const spelling of [["--json"], ["--json=true"], ["--no-json", "--json"]]) {
        const r = await cli([...leaf.path, ...fill(VALID[key] ?? []), ...spelling]);
        undo();
        expect({ spelling, code: r.code, json: isJson(r.stdout) || r.stdout }).toEqual({ spelling, code: 0, json: true });
      }
    });
  }
});

describe.skipIf(onPostgres)(ownSqliteFile("--help"), () => {
  // `chainwatch --help`, `chainwatch keys --help`, …: every command that holds others names them all.
  const parents = new Map<string, Set<string>>();
  for (const { path } of LEAVES)
    for (let i = 0; i < path.length; i++) {
      const key = path.slice(0, i).join(" ");
      parents.set(key, (parents.get(key) ?? new Set()).add(path[i]));
    }
  for (const [key, children] of parents) {
    test(`${["chainwatch", key].join(" ").trim()} --help exits 0 and names its commands`, async () => {
      const r = await cli([...(key ? key.split(" ") : []), "--help"]);
      expect(r.code).toBe(0);
      for (const child of children) expect(r.stdout).toContain(child);
    });
  }

  for (const leaf of LEAVES) {
    const key = leaf.path.join(" ");
    test(`${key} --help exits 0 and lists its flags and arguments`, async () => {
      const r = await cli([...leaf.path, "--help"]);
      expect(r.code).toBe(0);
      for (const [name] of leaf.options) expect(r.stdout).toContain(`--${name}`);
      for (const [name] of leaf.positionals) expect(r.stdout).toContain(name.toUpperCase());
      for (const flag of GLOBAL_FLAGS) if (leaf.globals.includes(flag)) expect(r.stdout).toContain(`--${flag}`);
      else expect(r.stdout).not.toContain(`--${flag}`);
    });
  }
});

describe.skipIf(onPostgres)(ownSqliteFile("output that is no success"), () => {
  test("backup of a PostgreSQL database prints the pg_dump command, as JSON with --json, and exits 1", async () => {
    const pg = join(dir, "pg.toml");
    writeFileSync(pg, `[database]\nurl = "postgres://chain@127.0.0.1:1/chainwatch"\n[secrets]\nmaster_key_file = "${dir}/master.key"\n`);
    const command = "pg_dump --format=custom --file=out.dump --host=127.0.0.1 --port=1 --username=chain --dbname=chainwatch";
    const stderr = "chainwatch: backup of a PostgreSQL database is pg_dump's job: run the command above (password from PGPASSWORD or ~/.pgpass)\n";
    const plain = await cli(["backup", "out.dump", "--config", pg]);
    const json = await cli(["backup", "out.dump", "--config", pg, "--json"]);
    rmSync(pg);
    expect(plain).toEqual({ code: 1, stdout: `${command}\n`, stderr });
    expect({ ...json, stdout: JSON.parse(json.stdout) }).toEqual({ code: 1, stdout: { ok: false, pg_dump: command }, stderr });
  });
});
