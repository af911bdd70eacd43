import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { variableName } from "../../src/config/env.ts";
import { type ConfigEnv, loadConfig } from "../../src/config/load.ts";
import { type Config, ConfigSchema } from "../../src/config/schema.ts";

// Every config key from the environment (docs/config.md, "From the environment"): CHAINWATCH_ and
// the key's path in capitals, steps joined by a double underscore; strings as they are, anything
// else a TOML value. Variables lie over the file, serve's flags over both.

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-config-env-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const CONTRACT = "0xdac17f958d2ee523a2206206994597c13d831ec7";
const DEV = { CHAINWATCH_NETWORKS__DEV__FAMILY: "evm" };
const LTC = { CHAINWATCH_NETWORKS__LTC__FAMILY: "btc" };

/**
 * One value for every key of the schema: its shape (record entries as `*`), the path set, the
 * variable's text, what the loaded config holds, and the variables it needs beside it.
 */
const EVERY_KEY: [string, string[], string, unknown, ConfigEnv?][] = [
  ["environment", ["environment"], "sandbox", "sandbox"],
  ["server.host", ["server", "host"], "0.0.0.0", "0.0.0.0"],
  ["server.port", ["server", "port"], "8788", 8788],
  ["server.trust_proxy", ["server", "trust_proxy"], "true", true],
  ["server.body_limit_bytes", ["server", "body_limit_bytes"], "2048", 2048],
  ["server.public_url", ["server", "public_url"], "https://pay.example.com", "https://pay.example.com"],
  ["database.url", ["database", "url"], "postgres://cw:pw@db.example:5432/cw", "postgres://cw:pw@db.example:5432/cw"],
  ["database.connect_timeout_ms", ["database", "connect_timeout_ms"], "7000", 7000],
  ["database.query_timeout_ms", ["database", "query_timeout_ms"], "20000", 20000],
  ["database.pool_size", ["database", "pool_size"], "4", 4],
  ["secrets.master_key_file", ["secrets", "master_key_file"], "/etc/chainwatch/master.key", "/etc/chainwatch/master.key"],
  ["ingest.token", ["ingest", "token"], "t0k en#1", "t0k en#1"],
  ["ingest.body_limit_bytes", ["ingest", "body_limit_bytes"], "4096", 4096],
  ["ingest.max_height_jump", ["ingest", "max_height_jump"], "50", 50],
  ["rate_limit.per_key_rps", ["rate_limit", "per_key_rps"], "25", 25],
  ["delivery.interval_seconds", ["delivery", "interval_seconds"], "2", 2],
  ["delivery.timeout_ms", ["delivery", "timeout_ms"], "4000", 4000],
  ["delivery.concurrency", ["delivery", "concurrency"], "8", 8],
  ["delivery.max_attempts", ["delivery", "max_attempts"], "5", 5],
  ["delivery.backoff_seconds", ["delivery", "backoff_seconds"], "[5, 30]", [5, 30]],
  ["delivery.disable_after_hours", ["delivery", "disable_after_hours"], "0", 0],
  ["delivery.lease_seconds", ["delivery", "lease_seconds"], "90", 90],
  ["delivery.shutdown_grace_ms", ["delivery", "shutdown_grace_ms"], "2000", 2000],
  ["delivery.retention_days", ["delivery", "retention_days"], "7", 7],
  ["delivery.allow_private_targets", ["delivery", "allow_private_targets"], "true", true],
  ["delivery.egress_ips", ["delivery", "egress_ips"], '["203.0.113.7", "2001:db8::7"]', ["203.0.113.7", "2001:db8::7"]],
  ["delivery.max_rps", ["delivery", "max_rps"], "50", 50],
  ["delivery.max_replay_pending", ["delivery", "max_replay_pending"], "500", 500],
  ["billing.enabled", ["billing", "enabled"], "false", false],
  ["billing.rates.*.address_activity", ["billing", "rates", "sandbox", "address_activity"], "7", 7],
  ["billing.rates.*.payments", ["billing", "rates", "sandbox", "payments"], "11", 11],
  ["events.retention_days", ["events", "retention_days"], "9", 9],
  ["log.level", ["log", "level"], "debug", "debug"],
  ["aml.provider", ["aml", "provider"], "http", "http", { CHAINWATCH_AML__HTTP_URL: "https://aml.example/check" }],
  ["aml.risk_list", ["aml", "risk_list"], "/etc/chainwatch/risk.json", "/etc/chainwatch/risk.json"],
  ["aml.fail_levels", ["aml", "fail_levels"], '["severe"]', ["severe"]],
  ["aml.http_url", ["aml", "http_url"], "https://aml.example/check", "https://aml.example/check"],
  ["aml.http_timeout_ms", ["aml", "http_timeout_ms"], "3000", 3000],
  ["aml.allow_private_targets", ["aml", "allow_private_targets"], "true", true],
  ["rpc.costs", ["rpc", "costs"], "{ eth_getLogs = 20, default = 2 }", { eth_getLogs: 20, default: 2 }],
  ["rpc.flush_interval_seconds", ["rpc", "flush_interval_seconds"], "3", 3],
  ["rpc.credit_slice", ["rpc", "credit_slice"], "50", 50],
  ["rpc.extra_methods", ["rpc", "extra_methods"], '["eth_getProof"]', ["eth_getProof"]],
  ["rpc.response_bytes_per_credit", ["rpc", "response_bytes_per_credit"], "0", 0],
  ["cabinet.enabled", ["cabinet", "enabled"], "false", false],
  ["cabinet.public_url", ["cabinet", "public_url"], "https://cabinet.example", "https://cabinet.example"],
  ["checkout.per_ip_rps", ["checkout", "per_ip_rps"], "5", 5],
  ["checkout.max_streams_per_ip", ["checkout", "max_streams_per_ip"], "3", 3],
  ["checkout.max_streams", ["checkout", "max_streams"], "100", 100],
  ["networks.*.family", ["networks", "dev", "family"], "generic", "generic"],
  ["networks.*.decimals", ["networks", "dev", "decimals"], "6", 6, DEV],
  ["networks.*.confirmations", ["networks", "dev", "confirmations"], "3", 3, DEV],
  ["networks.*.get_block_cost", ["networks", "dev", "get_block_cost"], "7", 7, DEV],
  ["networks.*.rpc_urls", ["networks", "dev", "rpc_urls"], '["http://127.0.0.1:8545", "https://backup.example/rpc"]', ["http://127.0.0.1:8545", "https://backup.example/rpc"], DEV],
  ["networks.*.follow", ["networks", "dev", "follow"], "true", true, { ...DEV, CHAINWATCH_NETWORKS__DEV__RPC_URLS: '["http://127.0.0.1:8545"]' }],
  ["networks.*.start_height", ["networks", "dev", "start_height"], "0", 0, DEV],
  ["networks.*.poll_interval_ms", ["networks", "dev", "poll_interval_ms"], "500", 500, DEV],
  ["networks.*.max_reorg_depth", ["networks", "dev", "max_reorg_depth"], "16", 16, DEV],
  ["networks.*.max_reorgs_per_minute", ["networks", "dev", "max_reorgs_per_minute"], "0", 0, DEV],
  ["networks.*.chain_id", ["networks", "dev", "chain_id"], "31337", 31337, DEV],
  ["networks.*.traces", ["networks", "dev", "traces"], "parity", "parity", DEV],
  ["networks.*.api_key", ["networks", "tron", "api_key"], "k3y", "k3y"],
  ["networks.*.rpc_timeout_ms", ["networks", "dev", "rpc_timeout_ms"], "3000", 3000, DEV],
  ["networks.*.max_response_bytes", ["networks", "dev", "max_response_bytes"], "1024", 1024, DEV],
  ["networks.*.tokens.*.symbol", ["networks", "dev", "tokens", CONTRACT, "symbol"], "USDT", "USDT", { ...DEV, [variableName(["networks", "dev", "tokens", CONTRACT, "decimals"])]: "6" }],
  ["networks.*.tokens.*.decimals", ["networks", "dev", "tokens", CONTRACT, "decimals"], "6", 6, DEV],
  ["networks.*.bech32_hrp", ["networks", "ltc", "bech32_hrp"], "rltc", "rltc", LTC],
  ["networks.*.p2pkh_version", ["networks", "ltc", "p2pkh_version"], "111", 111, LTC],
  ["networks.*.p2sh_version", ["networks", "ltc", "p2sh_version"], "58", 58, LTC],
  ["networks.*.max_money", ["networks", "ltc", "max_money"], "84000000", 84_000_000, LTC],
  ["networks.*.uri_scheme", ["networks", "ltc", "uri_scheme"], "litecoin", "litecoin", LTC],
  ["networks.*.symbol", ["networks", "dev", "symbol"], "DEV", "DEV", DEV],
  ["networks.*.chain", ["networks", "ltc", "chain"], "regtest", "regtest", LTC],
  ["networks.*.quorum", ["networks", "dev", "quorum"], "2", 2, { ...DEV, CHAINWATCH_NETWORKS__DEV__FOLLOW: "true", CHAINWATCH_NETWORKS__DEV__RPC_URLS: '["http://127.0.0.1:8545", "http://127.0.0.1:8546"]' }],
  ["networks.*.quorum_timeout_seconds", ["networks", "dev", "quorum_timeout_seconds"], "60", 60, DEV],
];

type Schema = TSchema & Record<string, any>;

/** Every key of the schema as a shape (`networks.*.decimals`); a record of plain values (`rpc.costs`) is one key. */
function keyShapes(s: Schema, path: string[] = []): string[] {
  if (s.properties) return Object.entries(s.properties as Record<string, Schema>).flatMap(([k, v]) => keyShapes(v, [...path, k]));
  const entry = s.patternProperties ? (Object.values(s.patternProperties)[0] as Schema) : undefined;
  if (entry?.properties) return keyShapes(entry, [...path, "*"]);
  return [path.join(".")];
}

function valueAt(config: Config, path: string[]): unknown {
  return path.reduce<unknown>((at, step) => (at as Record<string, unknown> | undefined)?.[step], config);
}

function loaded(env: ConfigEnv, path: string | null = null): Config {
  const result = loadConfig(path, env);
  if (!result.ok) throw new Error(result.error);
  return result.config;
}

function refusal(env: ConfigEnv, path: string | null = null): string {
  const result = loadConfig(path, env);
  if (result.ok) throw new Error(`expected ${JSON.stringify(env)} to be refused`);
  return result.error;
}

let n = 0;
function file(toml: string): string {
  const path = join(dir, `c${++n}.toml`);
  writeFileSync(path, toml);
  return path;
}

describe("every config key round-trips through the environment", () => {
  test("the table below names every key of the schema once", () => {
    expect(EVERY_KEY.map(([shape]) => shape).sort()).toEqual(keyShapes(ConfigSchema as Schema).sort());
  });

  test.each(EVERY_KEY.map(([shape, path, text, value, companions]) => [shape, variableName(path), text, path, value, companions ?? {}] as const))(
    "%s: %s=%s",
    (_shape, variable, text, path, value, companions) => {
      const config = loaded({ ...companions, [variable]: text });
      expect(valueAt(config, [...path])).toEqual(value);
    },
  );

  test("without any variable, every key is the file's or its default: the variables above change each one", () => {
    const defaults = loaded({});
    for (const [shape, path, , value] of EVERY_KEY) if (shape !== "networks.*.family") expect({ shape, value: valueAt(defaults, path) }).not.toEqual({ shape, value });
  });
});

describe("the rule", () => {
  test("a shipped network keeps what the variables do not name", () => {
    const config = loaded({ CHAINWATCH_NETWORKS__ETH__RPC_URLS: '["http://127.0.0.1:8545"]', CHAINWATCH_NETWORKS__ETH__FOLLOW: "true" });
    expect(config.networks.eth).toMatchObject({ family: "evm", decimals: 18, confirmations: 12, get_block_cost: 20, rpc_urls: ["http://127.0.0.1:8545"], follow: true });
  });

  test("a table's variable sets the keys it names and the file keeps the rest; a key's own variable wins over it", () => {
    const path = file('[server]\nhost = "10.0.0.1"\nport = 9001\ntrust_proxy = true\n');
    const config = loaded({ CHAINWATCH_SERVER: "{ port = 9002, body_limit_bytes = 4096 }", CHAINWATCH_SERVER__BODY_LIMIT_BYTES: "8192" }, path);
    expect(config.server).toEqual({ host: "10.0.0.1", port: 9002, trust_proxy: true, body_limit_bytes: 8192, public_url: "" });
  });

  test("a whole network from one variable", () => {
    const config = loaded({ CHAINWATCH_NETWORKS__DEV: '{ family = "evm", rpc_urls = ["http://127.0.0.1:8545"], follow = true, start_height = 0 }' });
    expect(config.networks.dev).toMatchObject({ family: "evm", rpc_urls: ["http://127.0.0.1:8545"], follow: true, start_height: 0, decimals: 18 });
  });

  test("start_height takes latest as a string and a height as a number", () => {
    expect(loaded({ ...DEV, CHAINWATCH_NETWORKS__DEV__START_HEIGHT: "latest" }).networks.dev.start_height).toBe("latest");
    expect(loaded({ ...DEV, CHAINWATCH_NETWORKS__DEV__START_HEIGHT: "12" }).networks.dev.start_height).toBe(12);
  });

  test("a network whose name has a - is named with _", () => {
    const path = file('[networks.ltc-regtest]\nfamily = "btc"\nbech32_hrp = "rltc"\np2pkh_version = 111\np2sh_version = 58\n');
    const config = loaded({ CHAINWATCH_NETWORKS__LTC_REGTEST__CONFIRMATIONS: "2" }, path);
    expect(config.networks["ltc-regtest"].confirmations).toBe(2);
    expect(config.networks.ltc_regtest).toBeUndefined();
  });

  test("entries whose names have capitals keep them through their table's variable", () => {
    const tron = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";
    const config = loaded({ CHAINWATCH_NETWORKS__TRON__TOKENS: `{ ${tron} = { symbol = "USDT", decimals = 6 } }`, CHAINWATCH_RPC__COSTS: "{ eth_getLogs = 20 }" });
    expect(config.networks.tron.tokens[tron]).toEqual({ symbol: "USDT", decimals: 6 });
    expect(config.rpc.costs).toEqual({ eth_getLogs: 20 });
  });

  test("an empty variable is as if unset", () => {
    expect(loaded({ CHAINWATCH_SERVER__PORT: "", CHAINWATCH_INGEST__TOKEN: "" }).server.port).toBe(8787);
  });

  test("CHAINWATCH_CONFIG, CHAINWATCH_MASTER_KEY, CHAINWATCH_TEST_… and the older CHAINWATCH_<SLUG>_API_KEY are not config keys, and are let be", () => {
    const config = loaded({ CHAINWATCH_CONFIG: "x.toml", CHAINWATCH_MASTER_KEY: "k", CHAINWATCH_TEST_DATABASE_URL: "postgres://x", CHAINWATCH_TRON_API_KEY: "old" });
    expect(config.networks.tron.api_key).toBe("old");
  });

  test("the older CHAINWATCH_TRON_API_KEY wins over networks.tron.api_key from a variable", () => {
    expect(loaded({ CHAINWATCH_NETWORKS__TRON__API_KEY: "new", CHAINWATCH_TRON_API_KEY: "old" }).networks.tron.api_key).toBe("old");
  });
});

describe("precedence: serve's flags, then variables, then the file, then the defaults", () => {
  const flag = { path: ["server", "port"], value: 9003, origin: "--port" };
  test.each<[string, boolean, ConfigEnv, boolean, number]>([
    ["the default", false, {}, false, 8787],
    ["the file over the default", true, {}, false, 9001],
    ["a variable over the file", true, { CHAINWATCH_SERVER__PORT: "9002" }, false, 9002],
    ["a flag over a variable and the file", true, { CHAINWATCH_SERVER__PORT: "9002" }, true, 9003],
  ])("%s", (_case, withFile, env, withFlag, port) => {
    const result = loadConfig(withFile ? file("[server]\nport = 9001\n") : null, env, withFlag ? [flag] : []);
    if (!result.ok) throw new Error(result.error);
    expect(result.config.server.port).toBe(port);
  });
});

describe("refusals name the variable", () => {
  test.each<[string, ConfigEnv, string]>([
    ["one underscore where two belong", { CHAINWATCH_SERVER_PORT: "9000" }, "unknown environment variable CHAINWATCH_SERVER_PORT: no config key is named so; did you mean CHAINWATCH_SERVER__PORT?"],
    ["a mistyped key of a network", { CHAINWATCH_NETWORKS__ETH__RPC_URL: "[]" }, "unknown environment variable CHAINWATCH_NETWORKS__ETH__RPC_URL: no config key is named so; did you mean CHAINWATCH_NETWORKS__ETH__RPC_URLS?"],
    ["a name close to nothing", { CHAINWATCH_FOO: "1" }, "unknown environment variable CHAINWATCH_FOO: no config key is named so"],
    ["a key of a key", { CHAINWATCH_SERVER__PORT__X: "1" }, "unknown environment variable CHAINWATCH_SERVER__PORT__X: no config key is named so; did you mean CHAINWATCH_SERVER__PORT?"],
    [
      "a per-method rpc cost",
      { CHAINWATCH_RPC__COSTS__ETH_GETLOGS: "20" },
      "unknown environment variable CHAINWATCH_RPC__COSTS__ETH_GETLOGS: rpc.costs entries keep their case, which a variable's name cannot carry: set CHAINWATCH_RPC__COSTS to an inline table, e.g. '{ eth_getLogs = 20 }'",
    ],
    ["a word for a number", { CHAINWATCH_SERVER__PORT: "eighty" }, "$CHAINWATCH_SERVER__PORT: config key `server.port` takes an integer (e.g. 8080), and the variable holds no such TOML value"],
    ["a number out of range", { CHAINWATCH_SERVER__PORT: "99999" }, "$CHAINWATCH_SERVER__PORT: config key `server.port`: expected integer to be less or equal to 65535"],
    ["yes for a boolean", { CHAINWATCH_DELIVERY__ALLOW_PRIVATE_TARGETS: "yes" }, "$CHAINWATCH_DELIVERY__ALLOW_PRIVATE_TARGETS: config key `delivery.allow_private_targets` takes true or false, and the variable holds no such TOML value"],
    ["a list without brackets", { CHAINWATCH_DELIVERY__BACKOFF_SECONDS: "5,30" }, "$CHAINWATCH_DELIVERY__BACKOFF_SECONDS: config key `delivery.backoff_seconds` takes a TOML array (e.g. [5, 30]), and the variable holds no such TOML value"],
    ["two values in one", { CHAINWATCH_SERVER__PORT: "1\nother = 2" }, "$CHAINWATCH_SERVER__PORT: config key `server.port` takes an integer (e.g. 8080), and the variable holds no such TOML value"],
    ["an unknown key in a table's variable", { CHAINWATCH_SERVER: "{ prot = 1 }" }, "$CHAINWATCH_SERVER: unknown config key `server.prot`; did you mean `server.port`?"],
    ["a network made by a variable without a family", { CHAINWATCH_NETWORKS__DEV__FOLLOW: "false" }, "$CHAINWATCH_NETWORKS__DEV__FOLLOW: config key `networks.dev.family` is required"],
    ["a semantic rule a variable breaks", { CHAINWATCH_DATABASE__URL: "mysql://db/cw" }, "$CHAINWATCH_DATABASE__URL: config key `database.url`: must be a sqlite://, postgres:// or postgresql:// URL"],
  ])("%s", (_case, env, message) => {
    expect(refusal(env)).toBe(message);
  });

  test("a refused value is never quoted back: a node URL may carry its password", () => {
    const error = refusal({ ...DEV, CHAINWATCH_NETWORKS__DEV__RPC_URLS: "http://user:hunter2@127.0.0.1:8332/" });
    expect(error).toContain("$CHAINWATCH_NETWORKS__DEV__RPC_URLS: config key `networks.dev.rpc_urls` takes a TOML array of strings");
    expect(error).not.toContain("hunter2");
  });

  test("a key the file got wrong is still the file's", () => {
    const path = file("[server]\nport = 70000\n");
    expect(refusal({ CHAINWATCH_SERVER__HOST: "0.0.0.0" }, path)).toBe(`${path}: config key \`server.port\`: expected integer to be less or equal to 65535`);
  });
});
