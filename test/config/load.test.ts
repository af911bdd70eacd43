import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, parseConfig, resolveConfigPath } from "../../src/config/load.ts";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-config-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
/** Writes `toml` to a fresh file and loads it. */
function load(toml: string) {
  const path = join(dir, `c${++n}.toml`);
  writeFileSync(path, toml);
  return { path, result: loadConfig(path) };
}

function errorOf(toml: string): string {
  const { path, result } = load(toml);
  if (result.ok) throw new Error(`expected ${JSON.stringify(toml)} to be refused`);
  expect(result.error.startsWith(`${path}: `)).toBe(true);
  return result.error.slice(path.length + 2);
}

describe("config defaults", () => {
  test("no file at all gives the documented defaults", () => {
    const result = loadConfig(null);
    if (!result.ok) throw new Error(result.error);
    expect(result.path).toBe(null);
    const c = result.config;
    expect(c.environment).toBe("production");
    expect(c.server).toEqual({ host: "127.0.0.1", port: 8787, trust_proxy: false, body_limit_bytes: 1_048_576, public_url: "" });
    expect(c.database.url).toBe("sqlite://./data/chainwatch.db");
    expect(c.secrets.master_key_file).toBe("./data/master.key");
    expect(c.ingest.token).toBe("");
    expect(c.rate_limit.per_key_rps).toBe(10);
    expect(c.delivery).toMatchObject({
      interval_seconds: 1,
      timeout_ms: 5000,
      concurrency: 32,
      max_attempts: 11,
      backoff_seconds: [5, 60, 300, 1800, 7200, 18000, 36000, 50400, 86400, 86400],
      disable_after_hours: 120,
      allow_private_targets: false,
      egress_ips: [],
    });
    expect(c.billing).toEqual({
      enabled: true,
      rates: { production: { address_activity: 50, payments: 100 }, sandbox: { address_activity: 5, payments: 10 } },
    });
    expect(c.events.retention_days).toBe(30);
    expect(c.aml).toMatchObject({ provider: "local", risk_list: "", fail_levels: ["high", "severe"] });
    expect(Object.keys(c.networks)).toEqual(["eth", "bsc", "polygon", "btc", "tron", "sol"]);
    expect(c.networks.eth).toEqual({ family: "evm", decimals: 18, confirmations: 12, get_block_cost: 20, rpc_urls: [], follow: false, start_height: "latest", poll_interval_ms: 2000, max_reorg_depth: 64, max_reorgs_per_minute: 6, traces: "off", rpc_timeout_ms: 10_000, quorum: 1, quorum_timeout_seconds: 600, max_response_bytes: 33_554_432, tokens: {} });
  });

  test("an empty file gives the same defaults", () => {
    const { result } = load("");
    const defaults = loadConfig(null);
    if (!result.ok || !defaults.ok) throw new Error("expected both to load");
    expect(result.config).toEqual(defaults.config);
  });

  test("a file's keys override the defaults and keep the rest", () => {
    const { result } = load(`environment = "sandbox"\n[server]\nport = 9000\n[rate_limit]\nper_key_rps = 50\n`);
    if (!result.ok) throw new Error(result.error);
    expect(result.config.environment).toBe("sandbox");
    expect(result.config.server).toEqual({ host: "127.0.0.1", port: 9000, trust_proxy: false, body_limit_bytes: 1_048_576, public_url: "" });
    expect(result.config.rate_limit.per_key_rps).toBe(50);
  });

  test("a [networks.X] table adds to the default networks, filling its own defaults", () => {
    const { result } = load(`[networks.base]\nfamily = "evm"\nconfirmations = 3\n`);
    if (!result.ok) throw new Error(result.error);
    expect(Object.keys(result.config.networks)).toEqual(["eth", "bsc", "polygon", "btc", "tron", "sol", "base"]);
    expect(result.config.networks.base).toEqual({ family: "evm", decimals: 18, confirmations: 3, get_block_cost: 0, rpc_urls: [], follow: false, start_height: "latest", poll_interval_ms: 2000, max_reorg_depth: 64, max_reorgs_per_minute: 6, traces: "off", rpc_timeout_ms: 10_000, quorum: 1, quorum_timeout_seconds: 600, max_response_bytes: 33_554_432, tokens: {} });
  });

  test("a quorum of 2 over two distinct rpc_urls of a followed network loads, its timeout 600 s unless given", () => {
    const { result } = load('[networks.x]\nfamily = "evm"\nrpc_urls = ["http://127.0.0.1:1", "http://127.0.0.1:2"]\nfollow = true\nquorum = 2\n');
    if (!result.ok) throw new Error(result.error);
    expect(result.config.networks.x).toMatchObject({ quorum: 2, quorum_timeout_seconds: 600 });
  });

  test("the config.example.toml of the repository, when present, loads", () => {
    const example = join(import.meta.dir, "../../config.example.toml");
    if (!Bun.file(example).size) return;
    const result = loadConfig(example);
    expect(result.ok ? "ok" : result.error).toBe("ok");
  });
});

describe("a table for a default network", () => {
  test("changes only the keys it names: [networks.tron] with rpc_urls keeps tron's family, decimals, confirmations and USDT", () => {
    const { result } = load('[networks.tron]\nrpc_urls = ["https://api.trongrid.io"]\nfollow = true\n');
    if (!result.ok) throw new Error(result.error);
    expect(result.config.networks.tron).toMatchObject({
      family: "tron",
      decimals: 6,
      confirmations: 19,
      get_block_cost: 20,
      rpc_urls: ["https://api.trongrid.io"],
      follow: true,
      tokens: { TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t: { symbol: "USDT", decimals: 6 } },
    });
  });

  test("adds the tokens it lists to the default's", () => {
    const { result } = load('[networks.tron.tokens]\n"TXLAQ63Xg1NAzckPwKHvzw7CSEmLMEqcdj" = { symbol = "USDC", decimals = 6 }\n');
    if (!result.ok) throw new Error(result.error);
    expect(Object.keys(result.config.networks.tron.tokens).sort()).toEqual(["TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", "TXLAQ63Xg1NAzckPwKHvzw7CSEmLMEqcdj"]);
  });

  test("that names another family is a network of its own and inherits nothing", () => {
    const { result } = load('[networks.btc]\nfamily = "evm"\n');
    if (!result.ok) throw new Error(result.error);
    expect(result.config.networks.btc).toMatchObject({ family: "evm", decimals: 18, confirmations: 1, get_block_cost: 0, tokens: {} });
  });
});

describe("tron networks", () => {
  test("the default tron network ships USDT's decimals; token keys keep their base58 case while evm ones are lower-cased", () => {
    const defaults = loadConfig(null);
    if (!defaults.ok) throw new Error(defaults.error);
    expect(defaults.config.networks.tron).toMatchObject({ family: "tron", decimals: 6, confirmations: 19, tokens: { TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t: { symbol: "USDT", decimals: 6 } } });
    const { result } = load(
      '[networks.t]\nfamily = "tron"\nrpc_urls = ["https://api.trongrid.io"]\nfollow = true\nchain_id = 728126428\n[networks.t.tokens]\n"TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t" = { decimals = 6 }\n' +
        '[networks.e]\nfamily = "evm"\n[networks.e.tokens]\n"0xDAC17F958D2EE523A2206206994597C13D831EC7" = { decimals = 6 }\n',
    );
    if (!result.ok) throw new Error(result.error);
    expect(result.config.networks.t).toMatchObject({ follow: true, chain_id: 728126428, tokens: { TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t: { decimals: 6 } } });
    expect(result.config.networks.e.tokens).toEqual({ "0xdac17f958d2ee523a2206206994597c13d831ec7": { decimals: 6 } });
  });

  test("$CHAINWATCH_<SLUG>_API_KEY overrides a tron network's api_key; an empty one, or one for another family, does nothing", () => {
    const path = join(dir, `c${++n}.toml`);
    writeFileSync(path, '[networks.tron-main]\nfamily = "tron"\napi_key = "from-file"\n');
    const fromEnv = loadConfig(path, { CHAINWATCH_TRON_MAIN_API_KEY: "from-env" });
    expect(fromEnv.ok && fromEnv.config.networks["tron-main"].api_key).toBe("from-env");
    const empty = loadConfig(path, { CHAINWATCH_TRON_MAIN_API_KEY: "" });
    expect(empty.ok && empty.config.networks["tron-main"].api_key).toBe("from-file");
    // The default network takes one from the environment alone.
    const defaults = loadConfig(null, { CHAINWATCH_TRON_API_KEY: "k", CHAINWATCH_ETH_API_KEY: "stray" });
    expect(defaults.ok && defaults.config.networks.tron.api_key).toBe("k");
    expect(defaults.ok && defaults.config.networks.eth.api_key).toBeUndefined();
  });
});

describe("btc networks", () => {
  test("the default btc network takes Bitcoin mainnet's addresses and checks no chain name", () => {
    const defaults = loadConfig(null);
    if (!defaults.ok) throw new Error(defaults.error);
    expect(defaults.config.networks.btc).toMatchObject({ family: "btc", bech32_hrp: "bc", p2pkh_version: 0, p2sh_version: 5, max_money: 21_000_000 });
    expect(defaults.config.networks.btc.chain).toBeUndefined();
    expect(defaults.config.networks.eth.bech32_hrp).toBeUndefined();
  });

  test("a btc network keeps the address keys and chain it sets; those it leaves out are Bitcoin mainnet's", () => {
    const { result } = load(
      '[networks.ltc-regtest]\nfamily = "btc"\nbech32_hrp = "rltc"\np2pkh_version = 111\np2sh_version = 58\nchain = "regtest"\nmax_money = 84000000\n' +
        '[networks.half]\nfamily = "btc"\nbech32_hrp = "tb"\n',
    );
    if (!result.ok) throw new Error(result.error);
    expect(result.config.networks["ltc-regtest"]).toMatchObject({ bech32_hrp: "rltc", p2pkh_version: 111, p2sh_version: 58, chain: "regtest", max_money: 84_000_000 });
    expect(result.config.networks.half).toMatchObject({ bech32_hrp: "tb", p2pkh_version: 0, p2sh_version: 5, max_money: 21_000_000 });
  });

  test("[networks.btc] changes only the keys it names", () => {
    const { result } = load('[networks.btc]\nbech32_hrp = "tb"\np2pkh_version = 111\np2sh_version = 196\nchain = "test"\n');
    if (!result.ok) throw new Error(result.error);
    expect(result.config.networks.btc).toMatchObject({ family: "btc", decimals: 8, confirmations: 2, get_block_cost: 50, bech32_hrp: "tb", p2pkh_version: 111, p2sh_version: 196, chain: "test" });
  });

  test.each([
    ["a bech32 prefix on an evm network", '[networks.x]\nfamily = "evm"\nbech32_hrp = "bc"\n', "config key `networks.x.bech32_hrp`: only btc networks have a bech32 prefix"],
    ["a bech32 prefix on the default eth network", '[networks.eth]\nbech32_hrp = "bc"\n', "config key `networks.eth.bech32_hrp`: only btc networks have a bech32 prefix"],
    ["a P2PKH version on a tron network", '[networks.x]\nfamily = "tron"\np2pkh_version = 0\n', "config key `networks.x.p2pkh_version`: only btc networks have base58 version bytes"],
    ["a P2SH version on a generic network", '[networks.x]\nfamily = "generic"\np2sh_version = 5\n', "config key `networks.x.p2sh_version`: only btc networks have base58 version bytes"],
    ["a chain name on an evm network", '[networks.x]\nfamily = "evm"\nchain = "main"\n', "config key `networks.x.chain`: only btc networks name a Bitcoin Core chain"],
    ["an upper-case bech32 prefix", '[networks.x]\nfamily = "btc"\nbech32_hrp = "BC"\n', 'config key `networks.x.bech32_hrp`: must be 1-83 lower-case letters and digits, e.g. "bc" or "tb"'],
    ["an empty bech32 prefix", '[networks.x]\nfamily = "btc"\nbech32_hrp = ""\n', 'config key `networks.x.bech32_hrp`: must be 1-83 lower-case letters and digits, e.g. "bc" or "tb"'],
    ["a bech32 prefix of 84 characters", `[networks.x]\nfamily = "btc"\nbech32_hrp = "${"a".repeat(84)}"\n`, 'config key `networks.x.bech32_hrp`: must be 1-83 lower-case letters and digits, e.g. "bc" or "tb"'],
    ["a P2PKH version above 255", '[networks.x]\nfamily = "btc"\np2pkh_version = 256\n', "config key `networks.x.p2pkh_version`: expected integer to be less or equal to 255"],
    ["a negative P2SH version", '[networks.x]\nfamily = "btc"\np2sh_version = -1\n', "config key `networks.x.p2sh_version`: expected integer to be greater or equal to 0"],
    ["a P2SH version given as a string", '[networks.x]\nfamily = "btc"\np2sh_version = "5"\n', "config key `networks.x.p2sh_version`: expected integer"],
    ["one version byte for both forms", '[networks.x]\nfamily = "btc"\np2pkh_version = 111\np2sh_version = 111\n', "config key `networks.x.p2sh_version`: must differ from p2pkh_version (111)"],
    ["a P2SH version equal to the default P2PKH one", '[networks.x]\nfamily = "btc"\np2sh_version = 0\n', "config key `networks.x.p2sh_version`: must differ from p2pkh_version (0)"],
    ["a max_money on an evm network", '[networks.x]\nfamily = "evm"\nmax_money = 21000000\n', "config key `networks.x.max_money`: only btc networks bound their outputs by the coin's MAX_MONEY"],
    ["a max_money of 0", '[networks.x]\nfamily = "btc"\nmax_money = 0\n', "config key `networks.x.max_money`: expected integer to be greater or equal to 1"],
    ["a chain name in upper case", '[networks.x]\nfamily = "btc"\nchain = "Main"\n', 'config key `networks.x.chain`: must be 1-32 of a-z, 0-9, _ and -, e.g. "main" or "regtest"'],
  ])("refuses %s", (_name, toml, message) => {
    expect(errorOf(toml)).toBe(message);
  });
});

describe("a bad config names the key and the reason", () => {
  test.each([
    ["an unknown top-level key", "bogus = 1\n", "unknown config key `bogus`"],
    ["an unknown key in a table", "[server]\nfoo = 1\n", "unknown config key `server.foo`"],
    ["an unknown key in a network", '[networks.x]\nfamily = "evm"\nfoo = 2\n', "unknown config key `networks.x.foo`"],
    ["a mistyped key in a table, naming the one meant", "[server]\nprot = 1\n", "unknown config key `server.prot`; did you mean `server.port`?"],
    ["a mistyped top-level key", 'enviroment = "sandbox"\n', "unknown config key `enviroment`; did you mean `environment`?"],
    ["a key missing its unit", "[delivery]\ntimeout = 5\n", "unknown config key `delivery.timeout`; did you mean `delivery.timeout_ms`?"],
    ["a mistyped network key", '[networks.x]\nfamily = "evm"\nconfirmation = 2\n', "unknown config key `networks.x.confirmation`; did you mean `networks.x.confirmations`?"],
    ["a string where an integer belongs", '[server]\nport = "x"\n', "config key `server.port`: expected integer"],
    ["a table given as a scalar", "server = 3\n", "config key `server`: expected object"],
    ["a boolean given as a string", '[server]\ntrust_proxy = "yes"\n', "config key `server.trust_proxy`: expected boolean"],
    ["a port out of range", "[server]\nport = 70000\n", "config key `server.port`: expected integer to be less or equal to 65535"],
    ["a zero rate limit", "[rate_limit]\nper_key_rps = 0\n", "config key `rate_limit.per_key_rps`: expected integer to be greater or equal to 1"],
    [
      "an unknown family",
      '[networks.x]\nfamily = "foo"\n',
      "config key `networks.x.family`: must be one of evm, btc, tron, solana, generic",
    ],
    ["a network without a family", "[networks.x]\ndecimals = 6\n", "config key `networks.x.family` is required"],
    [
      "a network name that is not a slug",
      '[networks.Bad]\nfamily = "evm"\n',
      "config key `networks.Bad`: a network name must be 1-32 of a-z, 0-9, _ and -, starting with a letter or digit",
    ],
    ["an unknown AML level", '[aml]\nfail_levels = ["extreme"]\n', "config key `aml.fail_levels.0`: must be one of low, medium, high, severe"],
    ["an unknown AML provider", '[aml]\nprovider = "remote"\n', "config key `aml.provider`: must be one of local, http"],
    ["an http AML provider without a URL", '[aml]\nprovider = "http"\n', 'config key `aml.http_url`: an http(s) URL is required when aml.provider = "http"'],
    [
      "an http AML provider on a private IP literal",
      '[aml]\nprovider = "http"\nhttp_url = "http://127.0.0.1:9000/screen"\n',
      "config key `aml.http_url`: names a private address; set aml.allow_private_targets = true to use it",
    ],
    [
      "an http AML provider on localhost",
      '[aml]\nprovider = "http"\nhttp_url = "http://localhost:9000/screen"\n',
      "config key `aml.http_url`: names a private address; set aml.allow_private_targets = true to use it",
    ],
    ["a zero height jump", "[ingest]\nmax_height_jump = 0\n", "config key `ingest.max_height_jump`: expected integer to be greater or equal to 1"],
    ["a chain id that is no integer", '[networks.x]\nfamily = "evm"\nchain_id = "1"\n', "config key `networks.x.chain_id`: expected integer"],
    ["a zero chain id", '[networks.x]\nfamily = "evm"\nchain_id = 0\n', "config key `networks.x.chain_id`: expected integer to be greater or equal to 1"],
    ["a chain id on a network that is neither evm nor tron", '[networks.x]\nfamily = "btc"\nchain_id = 1\n', "config key `networks.x.chain_id`: only evm and tron networks have a chain id"],
    ["a follower on a family without one", '[networks.x]\nfamily = "solana"\nrpc_urls = ["http://127.0.0.1:1"]\nfollow = true\n', "config key `networks.x.follow`: only evm, tron and btc networks can be followed by this build"],
    ["an API key on a network that is not tron", '[networks.x]\nfamily = "evm"\napi_key = "k"\n', "config key `networks.x.api_key`: only tron networks send an API key (TRON-PRO-API-KEY)"],
    ["a tron token keyed by a hex address", '[networks.t]\nfamily = "tron"\n[networks.t.tokens]\n"41a614f803b6fd780986a42c78ec9c7f77e6ded13c" = { decimals = 6 }\n', "config key `networks.t.tokens.41a614f803b6fd780986a42c78ec9c7f77e6ded13c`: not a tron address (base58check, T…)"],
    ["a tron token keyed by a lower-cased address", '[networks.t]\nfamily = "tron"\n[networks.t.tokens]\n"tr7nhqjekqxgtci8q8zy4pl8otszgjlj6t" = { decimals = 6 }\n', "config key `networks.t.tokens.tr7nhqjekqxgtci8q8zy4pl8otszgjlj6t`: not a tron address (base58check, T…)"],
    ["a negative reorg brake", "[networks.eth]\nfamily = \"evm\"\nmax_reorgs_per_minute = -1\n", "config key `networks.eth.max_reorgs_per_minute`: expected integer to be greater or equal to 0"],
    ["a database URL of an unknown engine", '[database]\nurl = "mysql://db/cw"\n', "config key `database.url`: must be a sqlite://, postgres:// or postgresql:// URL"],
    ["an environment without rates", 'environment = "staging"\n', 'config key `billing.rates.staging` is required for environment "staging"'],
    ["a pool of no connections", "[database]\npool_size = 0\n", "config key `database.pool_size`: expected integer to be greater or equal to 1"],
    ["an empty backoff list", "[delivery]\nbackoff_seconds = []\n", "config key `delivery.backoff_seconds`: expected array length to be greater or equal to 1"],
    [
      "an extra /rpc method that is not a method name",
      '[rpc]\nextra_methods = ["trace_block", "eth call"]\n',
      'config key `rpc.extra_methods[1]`: "eth call" is not a JSON-RPC method name (1-128 of letters, digits, _ and ., starting with a letter)',
    ],
    ["an extra /rpc method given as a string", '[rpc]\nextra_methods = "trace_block"\n', "config key `rpc.extra_methods`: expected array"],
    [
      "a quorum above the number of rpc_urls",
      '[networks.x]\nfamily = "evm"\nrpc_urls = ["http://127.0.0.1:1", "http://127.0.0.1:2"]\nfollow = true\nquorum = 3\n',
      "config key `networks.x.quorum`: 3 needs at least 3 rpc_urls; the network has 2",
    ],
    [
      "a quorum counting one URL twice",
      '[networks.x]\nfamily = "btc"\nrpc_urls = ["http://u:p@127.0.0.1:1/", "http://u:p@127.0.0.1:1"]\nfollow = true\nquorum = 2\n',
      "config key `networks.x.quorum`: 2 needs 2 distinct rpc_urls; the network has 1 (the same URL twice is one node)",
    ],
    [
      "a quorum on a network nobody follows",
      '[networks.x]\nfamily = "tron"\nrpc_urls = ["http://127.0.0.1:1", "http://127.0.0.1:2"]\nquorum = 2\n',
      "config key `networks.x.quorum`: more than 1 needs follow = true: the network's follower asks the upstreams",
    ],
    ["a zero quorum", '[networks.x]\nfamily = "evm"\nquorum = 0\n', "config key `networks.x.quorum`: expected integer to be greater or equal to 1"],
    ["a zero quorum timeout", '[networks.x]\nfamily = "evm"\nquorum_timeout_seconds = 0\n', "config key `networks.x.quorum_timeout_seconds`: expected integer to be greater or equal to 1"],
    ["a zero max_response_bytes", '[networks.x]\nfamily = "evm"\nmax_response_bytes = 0\n', "config key `networks.x.max_response_bytes`: expected integer to be greater or equal to 1"],
    [
      "a lease no longer than a send",
      "[delivery]\nlease_seconds = 5\ntimeout_ms = 5000\n",
      "config key `delivery.lease_seconds`: must be longer than delivery.timeout_ms",
    ],
  ])("%s", (_name, toml, message) => {
    expect(errorOf(toml)).toBe(message);
  });

  test("a file that is not TOML is refused naming the file", () => {
    const { path, result } = load("[server\nport = 1\n");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toStartWith(`config file ${path} is not valid TOML (line 1, column 8): `);
  });

  test("config.example.toml describes retention as the hourly cron it is, and documents [log] level", () => {
    const example = readFileSync(join(import.meta.dir, "../../config.example.toml"), "utf8");
    const retention = example.slice(example.indexOf("[events]"), example.indexOf("retention_days"));
    expect(retention).toContain("hourly");
    expect(retention).not.toContain("daily");
    expect(example).toContain('[log]\n');
    expect(example).toMatch(/^level = "info"$/m);
  });

  test.each([
    ["a table header left open", '# comment\n[server]\nport = 8787\n\n[delivery\n', "line 5, column 10", "Expected ']' to close a table header"],
    ["a value missing after =", "[server]\nhost =\n", "line 2, column 7", "Missing value after '='"],
    ["two values on one line", "[server]\nport = 1\nhost = \"a\" \"b\"\n", "line 3, column 12", "Expected a newline"],
  ])("a TOML syntax error names the line and column: %s", (_name, text, place, reason) => {
    const { path, result } = load(text);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toStartWith(`config file ${path} is not valid TOML (${place}): `);
      expect(result.error).toContain(reason);
    }
  });

  test("a missing file is refused naming the file", () => {
    const result = loadConfig(join(dir, "absent.toml"));
    expect(result.ok ? "" : result.error).toBe(`config file ${join(dir, "absent.toml")} does not exist`);
  });

  const errorOfPath = (path: string) => {
    const result = loadConfig(path);
    return result.ok ? "" : result.error;
  };

  test("a folder, or a path through a file, is refused in words, not the system's error text", () => {
    expect(errorOfPath(dir)).toBe(`config file ${dir} is a folder, not a file`);
    const file = join(dir, "plain.toml");
    writeFileSync(file, "");
    expect(errorOfPath(join(file, "x.toml"))).toBe(`config file ${join(file, "x.toml")} does not exist: part of its path is not a folder`);
  });

  test("an http AML provider on a private address is fine once allowed, and a name is checked per request", () => {
    const aml = (o: object) => parseConfig({ aml: { provider: "http", ...o } }, null).ok;
    expect(aml({ http_url: "http://127.0.0.1:9000/screen", allow_private_targets: true })).toBe(true);
    expect(aml({ http_url: "https://aml.example.com/screen" })).toBe(true);
  });

  test("an environment without rates is fine when billing is off", () => {
    expect(parseConfig({ environment: "staging", billing: { enabled: false } }, null).ok).toBe(true);
  });
});

describe("config lookup order: --config > $CHAINWATCH_CONFIG > ./chainwatch.toml > defaults", () => {
  let cwd: string;
  let bare: string;
  beforeAll(() => {
    cwd = join(dir, "with-local");
    bare = join(dir, "without-local");
    mkdirSync(cwd);
    mkdirSync(bare);
    writeFileSync(join(cwd, "chainwatch.toml"), "");
  });

  test("--config wins over everything", () => {
    expect(resolveConfigPath("/x/flag.toml", { CHAINWATCH_CONFIG: "/x/env.toml" }, cwd)).toBe("/x/flag.toml");
  });

  test("$CHAINWATCH_CONFIG wins over ./chainwatch.toml", () => {
    expect(resolveConfigPath(undefined, { CHAINWATCH_CONFIG: "/x/env.toml" }, cwd)).toBe("/x/env.toml");
  });

  test("./chainwatch.toml is used when present", () => {
    expect(resolveConfigPath(undefined, {}, cwd)).toBe(join(cwd, "chainwatch.toml"));
  });

  test("built-in defaults (no path) when nothing is given and there is no ./chainwatch.toml", () => {
    expect(resolveConfigPath(undefined, {}, bare)).toBe(null);
  });

  test("an empty $CHAINWATCH_CONFIG counts as unset", () => {
    expect(resolveConfigPath(undefined, { CHAINWATCH_CONFIG: "" }, bare)).toBe(null);
  });
});
