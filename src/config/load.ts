import { existsSync, readFileSync } from "node:fs";
import { Value, ValueErrorType } from "@sinclair/typebox/value";
import type { TSchema } from "@sinclair/typebox";
import { parse as parseToml, TomlError } from "smol-toml";
import { type Result, type StartupFailure, startupFailure } from "../lib/error-codes.ts";
import { closest } from "../lib/nearest-name.ts";
import { applyOverrides, type ConfigOverride, environmentOverrides, originOf } from "./env.ts";
import { privateByName } from "../net/target-guard.ts";
import { btcAddressParams } from "../chain/address/btc.ts";
import { normalizeAddress } from "../chain/address/normalize.ts";
import { BTC_MAX_MONEY_DEFAULT, type Config, ConfigSchema, DEFAULT_NETWORKS, type Family, type NetworkConfig, NetworkSchema, RatesSchema } from "./schema.ts";

export type ConfigResult = Result<{ config: Config; path: string | null }, StartupFailure>;

/** The config file in use and how it was chosen, for messages that must say where a setting came from. */
export type ConfigSource = { path: string | null; via: "--config" | "$CHAINWATCH_CONFIG" | "./chainwatch.toml" | null };

/** Picks the config file: --config, else $CHAINWATCH_CONFIG, else ./chainwatch.toml when present, else none. */
export function findConfig(flag: string | undefined, env: Record<string, string | undefined>, cwd: string): ConfigSource {
  if (flag) return { path: flag, via: "--config" };
  if (env.CHAINWATCH_CONFIG) return { path: env.CHAINWATCH_CONFIG, via: "$CHAINWATCH_CONFIG" };
  const local = `${cwd}/chainwatch.toml`;
  return existsSync(local) ? { path: local, via: "./chainwatch.toml" } : { path: null, via: null };
}

/** The path `findConfig` picks, or null for the built-in defaults. */
export function resolveConfigPath(flag: string | undefined, env: Record<string, string | undefined>, cwd: string): string | null {
  return findConfig(flag, env, cwd).path;
}

/**
 * The environment a config is read in: `CHAINWATCH_<KEY>` variables set keys over the file's
 * (src/config/env.ts), and `$CHAINWATCH_<SLUG>_API_KEY` overrides a tron network's `api_key`.
 */
export type ConfigEnv = Record<string, string | undefined>;

/** Why a config file could not be read, in words rather than the system's error text. */
function unreadable(path: string, code: string | undefined): string {
  switch (code) {
    case "ENOENT":
      return `config file ${path} does not exist`;
    case "EACCES":
    case "EPERM":
      return `config file ${path} cannot be read: permission denied`;
    case "EISDIR":
      return `config file ${path} is a folder, not a file`;
    case "ENOTDIR":
      return `config file ${path} does not exist: part of its path is not a folder`;
    default:
      return `cannot read config file ${path}${code ? ` (${code})` : ""}`;
  }
}

/**
 * Reads, parses and validates a config file (or the built-in defaults when `path` is null), with
 * the keys the environment's CHAINWATCH_ variables set laid over it, and `flags` (serve's --port
 * and the like) over both.
 */
export function loadConfig(path: string | null, env: ConfigEnv = {}, flags: ConfigOverride[] = []): ConfigResult {
  if (path === null) return parseConfig({}, null, env, flags);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    return startupFailure(unreadable(path, (e as { code?: string }).code));
  }
  let raw: unknown;
  try {
    raw = Bun.TOML.parse(text);
  } catch (e) {
    return startupFailure(`config file ${path} is not valid TOML${tomlErrorPlace(text)}: ${(e as Error).message.replace(/^TOML Parse error: /, "")}`);
  }
  return parseConfig(raw, path, env, flags);
}

/**
 * Where a TOML syntax error is (` (line 3, column 5)`), or "" when unknown. Bun's parser says what
 * is wrong but not where; smol-toml, a strict TOML 1.0 parser, is asked only to locate it.
 */
function tomlErrorPlace(text: string): string {
  try {
    parseToml(text);
  } catch (e) {
    if (e instanceof TomlError) return ` (line ${e.line}, column ${e.column})`;
  }
  return "";
}

/**
 * Validates an already-parsed document with the environment's and the flags' keys laid over it;
 * every error names the key, the reason, and where the key was set (the file, a variable, a flag).
 */
export function parseConfig(raw: unknown, path: string | null, env: ConfigEnv = {}, flags: ConfigOverride[] = []): ConfigResult {
  const fromEnv = environmentOverrides(env, raw);
  if (!fromEnv.ok) return startupFailure(fromEnv.error);
  const overrides = [...fromEnv.overrides, ...flags];
  const fileName = path ?? "built-in defaults";
  // An error about a key a variable or a flag set is said to come from there, not from the file.
  const failure = (message: string) => startupFailure(`${originOf(/`([^`]+)`/.exec(message)?.[1] ?? "", overrides, raw) ?? fileName}: ${message}`);
  const value = Value.Default(ConfigSchema, overDefaultNetworks(applyOverrides(structuredClone(raw ?? {}), overrides))) as Record<string, any>;
  // TypeBox does not descend into Record values when filling defaults; do it per entry.
  fillRecordDefaults(value.networks, NetworkSchema);
  fillRecordDefaults(value.billing?.rates, RatesSchema);
  const first = Value.Errors(ConfigSchema, value).First();
  if (first) return failure(describeConfigError(first.path, first.type, first.message, first.schema));
  const config = value as Config;
  for (const [slug, n] of Object.entries(config.networks)) {
    const tokens = normalizeTokens(slug, n);
    if (typeof tokens === "string") return failure(tokens);
    n.tokens = tokens;
  }
  config.networks = { ...DEFAULT_NETWORKS, ...config.networks };
  // Spelled out on every btc network, so the loaded config says which addresses it takes and the most an output may carry.
  for (const [slug, n] of Object.entries(config.networks)) {
    if (n.family === "btc") config.networks[slug] = { ...n, ...btcAddressParams(n), max_money: n.max_money ?? BTC_MAX_MONEY_DEFAULT };
  }
  // Only tron networks send a key: a stray variable for another network changes nothing.
  for (const [slug, n] of Object.entries(config.networks)) {
    const key = env[apiKeyVariable(slug)];
    if (key && n.family === "tron") config.networks[slug] = { ...n, api_key: key };
  }
  const semantic = checkSemantics(config);
  return semantic ? failure(semantic) : { ok: true, config, path };
}

/**
 * A `[networks.<slug>]` table for a network that ships by default changes only the keys it names:
 * `[networks.tron] rpc_urls = […]` keeps tron's family, decimals, confirmations and USDT. Its
 * tokens are added to the default's (an entry for the same contract replaces it). A table that
 * names another family is a network of its own and inherits nothing.
 */
function overDefaultNetworks(raw: unknown): unknown {
  const networks = (raw as { networks?: unknown } | null)?.networks;
  if (typeof networks !== "object" || networks === null || Array.isArray(networks)) return raw;
  for (const [slug, table] of Object.entries(networks as Record<string, unknown>)) {
    const base = Object.hasOwn(DEFAULT_NETWORKS, slug) ? DEFAULT_NETWORKS[slug] : undefined;
    if (!base || typeof table !== "object" || table === null || Array.isArray(table)) continue;
    const own = table as Record<string, unknown>;
    if (own.family !== undefined && own.family !== base.family) continue;
    const tokens = typeof own.tokens === "object" && own.tokens !== null ? { ...base.tokens, ...(own.tokens as object) } : base.tokens;
    (networks as Record<string, unknown>)[slug] = { ...structuredClone(base), ...own, tokens: structuredClone(tokens) };
  }
  return raw;
}

/** The environment variable holding a network's API key: `CHAINWATCH_TRON_API_KEY` for `tron`. */
export function apiKeyVariable(slug: string): string {
  return `CHAINWATCH_${slug.toUpperCase().replace(/-/g, "_")}_API_KEY`;
}

/**
 * Token metadata keyed by contract address as the follower sees it: evm lower case; tron the
 * base58check `T…` form (case matters there), refused when it is none. Returns the error otherwise.
 */
function normalizeTokens(slug: string, n: NetworkConfig): NetworkConfig["tokens"] | string {
  const out: NetworkConfig["tokens"] = {};
  for (const [key, token] of Object.entries(n.tokens)) {
    const address = tokenKey(n.family, key);
    if (address === null) return `config key \`networks.${slug}.tokens.${key}\`: not a tron address (base58check, T…)`;
    out[address] = token;
  }
  return out;
}

function tokenKey(family: Family, key: string): string | null {
  if (family === "evm") return key.toLowerCase();
  if (family === "tron") return normalizeAddress("tron", key);
  return key;
}

function fillRecordDefaults(record: unknown, schema: TSchema): void {
  if (typeof record !== "object" || record === null || Array.isArray(record)) return;
  const entries = record as Record<string, unknown>;
  for (const key of Object.keys(entries)) entries[key] = Value.Default(schema, entries[key]);
}

function describeConfigError(pointer: string, type: ValueErrorType, message: string, schema: TSchema): string {
  const key = pointer.split("/").filter(Boolean).join(".") || "(root)";
  const literals = (schema.anyOf as TSchema[] | undefined)?.map((s) => s.const);
  if (type === ValueErrorType.Union && literals?.every((v) => typeof v === "string"))
    return `config key \`${key}\`: must be one of ${literals.join(", ")}`;
  if (type === ValueErrorType.ObjectAdditionalProperties && /^networks\.[^.]+$/.test(key))
    return `config key \`${key}\`: a network name must be 1-32 of a-z, 0-9, _ and -, starting with a letter or digit`;
  if (type === ValueErrorType.ObjectAdditionalProperties) {
    // The keys the table does take, to name the one a typo was meant to be.
    const known = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
    const hint = closest(key.split(".").pop() as string, known);
    const meant = hint ? key.split(".").slice(0, -1).concat(hint).join(".") : null;
    return `unknown config key \`${key}\`${meant ? `; did you mean \`${meant}\`?` : ""}`;
  }
  if (type === ValueErrorType.ObjectRequiredProperty) return `config key \`${key}\` is required`;
  // A pattern means little to a reader; a schema that has one says in words what it must be.
  if (type === ValueErrorType.StringPattern && typeof schema.mustBe === "string") return `config key \`${key}\`: must be ${schema.mustBe}`;
  return `config key \`${key}\`: ${message.toLowerCase()}`;
}

/** What `[rpc] extra_methods` may name: the shape of every JSON-RPC method a node serves (`eth_getProof`, `rpc.discover`). */
const METHOD_NAME = /^[A-Za-z][A-Za-z0-9_.]{0,127}$/;

/** Keys only a btc-family network may set, each with why. */
const BTC_ONLY_KEYS = {
  bech32_hrp: "only btc networks have a bech32 prefix",
  p2pkh_version: "only btc networks have base58 version bytes",
  p2sh_version: "only btc networks have base58 version bytes",
  chain: "only btc networks name a Bitcoin Core chain",
  max_money: "only btc networks bound their outputs by the coin's MAX_MONEY",
  uri_scheme: "only btc networks have a BIP-21 payment URI",
} as const;

/** Families with a follower in this build (src/follow/followers.ts). */
const FOLLOWED_FAMILIES = new Set<Family>(["evm", "tron", "btc"]);
/** Families whose chains have a numeric id (a btc chain is named instead: `chain`). */
const CHAIN_ID_FAMILIES = new Set<Family>(["evm", "tron"]);

/**
 * What is wrong with `[server] public_url` (checkout links are built on it and handed to payers),
 * or null: empty, or an absolute http(s) URL with a host and nothing after its path.
 */
function publicUrlProblem(url: string): string | null {
  if (url === "") return null;
  if (!/^https?:\/\/[^/]/i.test(url) || !URL.canParse(url)) return "must be an absolute http(s) URL, e.g. \"https://pay.example.com\"";
  const u = new URL(url);
  if (u.username !== "" || u.password !== "") return "must not carry a user name or password (payers would see them)";
  if (u.search !== "" || u.hash !== "" || url.includes("?") || url.includes("#")) return "must not have a query or a fragment (links are made by adding a path)";
  return null;
}

/**
 * What is wrong with a network's `quorum`, or null: N upstreams must be able to agree, so the
 * network needs N distinct `rpc_urls` (the same URL twice is one node asked twice) and a follower,
 * which is what asks them (docs/chains.md, upstream quorum).
 */
function quorumProblem(n: NetworkConfig): string | null {
  if (n.quorum === 1) return null;
  const distinct = new Set(n.rpc_urls.map((u) => (URL.canParse(u) ? new URL(u).href : u))).size;
  if (n.rpc_urls.length < n.quorum) return `${n.quorum} needs at least ${n.quorum} rpc_urls; the network has ${n.rpc_urls.length}`;
  if (distinct < n.quorum) return `${n.quorum} needs ${n.quorum} distinct rpc_urls; the network has ${distinct} (the same URL twice is one node)`;
  if (!n.follow) return "more than 1 needs follow = true: the network's follower asks the upstreams";
  return null;
}

function checkSemantics(c: Config): string | null {
  if (!/^(sqlite|postgres|postgresql):\/\//.test(c.database.url) && c.database.url !== ":memory:")
    return "config key `database.url`: must be a sqlite://, postgres:// or postgresql:// URL";
  if (c.billing.enabled && !c.billing.rates[c.environment])
    return `config key \`billing.rates.${c.environment}\` is required for environment "${c.environment}"`;
  // A lease shorter than a send would let a second claim re-send a delivery still in flight.
  if (c.delivery.lease_seconds * 1000 <= c.delivery.timeout_ms)
    return "config key `delivery.lease_seconds`: must be longer than delivery.timeout_ms";
  if (c.aml.provider === "http" && !/^https?:\/\//.test(c.aml.http_url))
    return "config key `aml.http_url`: an http(s) URL is required when aml.provider = \"http\"";
  if (c.cabinet.public_url !== "" && !/^https?:\/\/[^/]/.test(c.cabinet.public_url))
    return "config key `cabinet.public_url`: must be an http(s) URL";
  const publicUrl = publicUrlProblem(c.server.public_url);
  if (publicUrl) return `config key \`server.public_url\`: ${publicUrl}`;
  // Known private without DNS: say so now rather than fail every screening (names are checked per request).
  if (c.aml.provider === "http" && !c.aml.allow_private_targets && URL.canParse(c.aml.http_url) && privateByName(new URL(c.aml.http_url)))
    return "config key `aml.http_url`: names a private address; set aml.allow_private_targets = true to use it";
  const badMethod = c.rpc.extra_methods.findIndex((m) => !METHOD_NAME.test(m));
  if (badMethod >= 0)
    return `config key \`rpc.extra_methods[${badMethod}]\`: ${JSON.stringify(c.rpc.extra_methods[badMethod])} is not a JSON-RPC method name (1-128 of letters, digits, _ and ., starting with a letter)`;
  for (const [slug, n] of Object.entries(c.networks)) {
    const bad = n.rpc_urls.findIndex((u) => !/^https?:\/\/[^/]/.test(u));
    if (bad >= 0) return `config key \`networks.${slug}.rpc_urls[${bad}]\`: must be an http(s) URL`;
    if (n.follow && n.rpc_urls.length === 0) return `config key \`networks.${slug}.follow\`: needs rpc_urls`;
    if (n.follow && !FOLLOWED_FAMILIES.has(n.family)) return `config key \`networks.${slug}.follow\`: only evm, tron and btc networks can be followed by this build`;
    const quorum = quorumProblem(n);
    if (quorum) return `config key \`networks.${slug}.quorum\`: ${quorum}`;
    if (n.chain_id !== undefined && !CHAIN_ID_FAMILIES.has(n.family)) return `config key \`networks.${slug}.chain_id\`: only evm and tron networks have a chain id`;
    if (n.traces !== "off" && n.family !== "evm") return `config key \`networks.${slug}.traces\`: only evm networks are traced`;
    if (n.api_key !== undefined && n.family !== "tron") return `config key \`networks.${slug}.api_key\`: only tron networks send an API key (TRON-PRO-API-KEY)`;
    for (const [key, why] of Object.entries(BTC_ONLY_KEYS))
      if (n[key as keyof typeof BTC_ONLY_KEYS] !== undefined && n.family !== "btc") return `config key \`networks.${slug}.${key}\`: ${why}`;
    // The page links to the payment URI: a scheme a browser runs or loads itself is no wallet's.
    if (n.uri_scheme !== undefined && ["javascript", "data", "vbscript", "file", "http", "https", "blob", "about"].includes(n.uri_scheme))
      return `config key \`networks.${slug}.uri_scheme\`: ${n.uri_scheme} is a browser's own scheme, not a wallet's`;
    // One version byte for both would make every P2SH address read as P2PKH and the other way round.
    if (n.family === "btc" && n.p2pkh_version === n.p2sh_version)
      return `config key \`networks.${slug}.p2sh_version\`: must differ from p2pkh_version (${n.p2pkh_version})`;
  }
  return null;
}
