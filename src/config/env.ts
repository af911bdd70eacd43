import type { TSchema } from "@sinclair/typebox";
import { closest } from "../lib/nearest-name.ts";
import { ConfigSchema, DEFAULT_NETWORKS } from "./schema.ts";

// Every config key can be set from the environment, so a systemd unit or a container needs no
// config file edits. The rule, one for every key (docs/config.md, "From the environment"):
//   the variable is CHAINWATCH_ and the key's path in capitals, each step of the path joined by a
//   double underscore: server.port → CHAINWATCH_SERVER__PORT, networks.eth.rpc_urls →
//   CHAINWATCH_NETWORKS__ETH__RPC_URLS (a `-` in a network's name is written `_`);
//   a string key takes the value as it is; any other key takes a TOML value: 8080, true,
//   [5, 30, 120], ["http://a", "http://b"], { symbol = "USDT", decimals = 6 };
//   a table's own variable (CHAINWATCH_SERVER, CHAINWATCH_NETWORKS__DEV) takes an inline table
//   and sets each key it names: the only way to name a record entry whose name has capitals
//   (an `rpc.costs` method, a tron token contract), since a variable's name is read in capitals;
//   an empty variable is as if unset.
// Variables are laid over the file (flags of `serve` over both), so the file keeps what they do
// not name. A CHAINWATCH_ variable that names no key stops start-up, naming the nearest one: a
// typo must not leave a setting quietly at its default.

const PREFIX = "CHAINWATCH_";
/** Joins the steps of a key's path in its variable's name. */
const STEP = "__";

/** CHAINWATCH_ variables that are not config keys: the file to read, the master key itself. */
const OTHER_VARIABLES = new Set(["CHAINWATCH_CONFIG", "CHAINWATCH_MASTER_KEY"]);
/** Read by chainwatch's own test suite (CHAINWATCH_TEST_DATABASE_URL), never by the daemon. */
const TEST_VARIABLES = "CHAINWATCH_TEST_";
/** The older spelling of a network's API key, `CHAINWATCH_TRON_API_KEY`, read by loadConfig. */
const NETWORK_API_KEY = /^CHAINWATCH_(?!.*__)[A-Z0-9_]+_API_KEY$/;

/** Records whose entries' names keep their case (JSON-RPC methods): set them through the table's variable. */
const CASE_SENSITIVE_RECORDS = new Set(["rpc.costs"]);

/** One key set from outside the file: its path, its value, and what set it (`$CHAINWATCH_SERVER__PORT`, `--port`). */
export type ConfigOverride = { path: string[]; value: unknown; origin: string };

type Schema = TSchema & Record<string, any>;

/** The variable of a config key: `["server", "port"]` → `CHAINWATCH_SERVER__PORT`. */
export function variableName(path: string[]): string {
  return PREFIX + path.map((step) => step.toUpperCase().replace(/-/g, "_")).join(STEP);
}

/** True for a CHAINWATCH_ variable that is not a config key. */
function otherVariable(name: string): boolean {
  return OTHER_VARIABLES.has(name) || name.startsWith(TEST_VARIABLES) || NETWORK_API_KEY.test(name);
}

/** The value schema of a record (`networks`, `billing.rates`, `rpc.costs`, `tokens`), or undefined for a table or a key. */
function recordValue(s: Schema): Schema | undefined {
  return s.patternProperties ? (Object.values(s.patternProperties)[0] as Schema) : undefined;
}

/** True when a key of this schema takes nothing but strings: its variable's value is taken as it is. */
function takesOnlyStrings(s: Schema): boolean {
  if (s.anyOf) return (s.anyOf as Schema[]).every(takesOnlyStrings);
  return s.type === "string";
}

function takesStrings(s: Schema): boolean {
  if (s.anyOf) return (s.anyOf as Schema[]).some(takesStrings);
  return s.type === "string";
}

/** The networks a variable's step may name: the file's and the shipped ones. */
function knownNetworks(raw: unknown): string[] {
  const own = (raw as { networks?: unknown } | null)?.networks;
  const fromFile = typeof own === "object" && own !== null && !Array.isArray(own) ? Object.keys(own) : [];
  return [...new Set([...fromFile, ...Object.keys(DEFAULT_NETWORKS)])];
}

/**
 * The key path a variable names, with the schema of its value, or why it names none. A record's
 * entry is named in lower case (`ETH` → `eth`); a network's name may also be written with `_` for
 * `-` (`LTC_REGTEST` → `ltc-regtest`, when that network exists).
 */
function resolvePath(name: string, raw: unknown): { path: string[]; schema: Schema } | { problem: string } {
  const steps = name.slice(PREFIX.length).split(STEP);
  let schema = ConfigSchema as Schema;
  const path: string[] = [];
  for (const step of steps) {
    if (step === "" || !/^[A-Za-z0-9_]+$/.test(step)) return { problem: "not a config key's variable" };
    const record = recordValue(schema);
    if (record) {
      if (CASE_SENSITIVE_RECORDS.has(path.join(".")))
        return { problem: `${path.join(".")} entries keep their case, which a variable's name cannot carry: set ${variableName(path)} to an inline table, e.g. '{ eth_getLogs = 20 }'` };
      const lower = step.toLowerCase();
      const network = path.length === 1 && path[0] === "networks" ? knownNetworks(raw).find((slug) => slug.replace(/-/g, "_") === lower && !knownNetworks(raw).includes(lower)) : undefined;
      path.push(network ?? lower);
      schema = record;
      continue;
    }
    const key = step.toLowerCase();
    const properties = schema.properties as Record<string, Schema> | undefined;
    if (!properties || !Object.hasOwn(properties, key)) return { problem: "no config key is named so" };
    path.push(key);
    schema = properties[key];
  }
  return { path, schema };
}

/** Every variable a config could be given, for naming the nearest to a mistyped one. */
function knownVariables(raw: unknown): string[] {
  const out: string[] = [];
  const walk = (s: Schema, path: string[]) => {
    if (path.length > 0) out.push(variableName(path));
    const record = recordValue(s);
    if (record) {
      const entries = path.join(".") === "networks" ? knownNetworks(raw) : path.join(".") === "billing.rates" ? ["production", "sandbox"] : [];
      for (const entry of entries) walk(record, [...path, entry]);
      return;
    }
    for (const [key, child] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) walk(child, [...path, key]);
  };
  walk(ConfigSchema as Schema, []);
  return out;
}

/**
 * A variable's value as the key takes it: a string key's as it is; any other key's read as a TOML
 * value, falling back to the text itself when the key also takes strings (`start_height = latest`).
 */
function readValue(name: string, path: string[], text: string, schema: Schema): { value: unknown } | { problem: string } {
  if (takesOnlyStrings(schema)) return { value: text };
  // The value is never quoted back: an rpc_urls list may carry a node's password.
  const refused = { problem: `$${name}: config key \`${path.join(".")}\` takes ${expectedForm(schema)}, and the variable holds no such TOML value` };
  let parsed: Record<string, unknown>;
  try {
    parsed = Bun.TOML.parse(`value = ${text}`) as Record<string, unknown>;
  } catch {
    return takesStrings(schema) ? { value: text } : refused;
  }
  // `1\nother = 2` would parse as a document of two keys: a value is one thing.
  return Object.keys(parsed).length === 1 ? { value: parsed.value } : refused;
}

/** What a key's variable must hold, in words with an example. */
function expectedForm(s: Schema): string {
  if (s.anyOf) return (s.anyOf as Schema[]).map(expectedForm).join(" or ");
  if (s.const !== undefined) return JSON.stringify(s.const);
  switch (s.type) {
    case "integer":
    case "number":
      return s.type === "integer" ? "an integer (e.g. 8080)" : "a number (e.g. 8080)";
    case "boolean":
      return "true or false";
    case "array":
      return s.items?.type === "string" ? 'a TOML array of strings (e.g. ["http://127.0.0.1:8545"])' : "a TOML array (e.g. [5, 30])";
    case "string":
      return "a string";
    default:
      return "an inline TOML table (e.g. { key = 1 })";
  }
}

/**
 * The keys the environment sets, shallowest first (a table's variable, then its keys' own, which
 * win), or the first variable that names no key or holds no value its key could take.
 */
export function environmentOverrides(env: Record<string, string | undefined>, raw: unknown): { ok: true; overrides: ConfigOverride[] } | { ok: false; error: string } {
  const overrides: ConfigOverride[] = [];
  const names = Object.keys(env)
    .filter((name) => name.startsWith(PREFIX) && !otherVariable(name) && env[name] !== undefined && env[name] !== "")
    .sort();
  for (const name of names) {
    const target = resolvePath(name, raw);
    if ("problem" in target) {
      // Compared without the prefix every candidate shares, which would make any two names look alike.
      const hint = closest(name.slice(PREFIX.length), knownVariables(raw).map((v) => v.slice(PREFIX.length)));
      return { ok: false, error: `unknown environment variable ${name}: ${target.problem}${hint ? `; did you mean ${PREFIX}${hint}?` : ""}` };
    }
    const read = readValue(name, target.path, env[name] as string, target.schema);
    if ("problem" in read) return { ok: false, error: read.problem };
    overrides.push({ path: target.path, value: read.value, origin: `$${name}` });
  }
  return { ok: true, overrides: overrides.sort((a, b) => a.path.length - b.path.length) };
}

const isTable = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Sets each override in `raw` (a parsed config document), in order; a table value sets the keys it names and keeps the rest. */
export function applyOverrides(raw: unknown, overrides: ConfigOverride[]): Record<string, unknown> {
  const doc = isTable(raw) ? raw : {};
  for (const { path, value } of overrides) {
    let at = doc;
    for (const step of path.slice(0, -1)) {
      if (!isTable(at[step])) at[step] = {};
      at = at[step] as Record<string, unknown>;
    }
    const last = path[path.length - 1];
    at[last] = isTable(value) && isTable(at[last]) ? merged(at[last] as Record<string, unknown>, value) : value;
  }
  return doc;
}

function merged(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isTable(v) && isTable(out[k]) ? merged(out[k] as Record<string, unknown>, v) : v;
  return out;
}

/**
 * What set a key, for a message about it: `$CHAINWATCH_SERVER__PORT`, `--port`, or undefined for
 * the file. A key no override set but whose table one made (`networks.dev.family` missing from a
 * network that only `$CHAINWATCH_NETWORKS__DEV__RPC_URLS` names) is that override's too.
 */
export function originOf(key: string, overrides: ConfigOverride[], raw: unknown): string | undefined {
  let found: ConfigOverride | undefined;
  for (const o of overrides) {
    const dotted = o.path.join(".");
    if (key === dotted || key.startsWith(`${dotted}.`) || key.startsWith(`${dotted}[`)) if (!found || o.path.length >= found.path.length) found = o;
  }
  if (found) return found.origin;
  const table = key.split(".").slice(0, -1);
  if (table.length === 0 || hasPath(raw, table)) return undefined;
  return overrides.find((o) => table.every((step, i) => o.path[i] === step))?.origin;
}

function hasPath(raw: unknown, path: string[]): boolean {
  let at = raw;
  for (const step of path) {
    if (!isTable(at) || !Object.hasOwn(at, step)) return false;
    at = at[step];
  }
  return true;
}
