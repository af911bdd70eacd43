import { type Static, Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

/** Network slugs: what `[networks.<slug>]` may be called. */
export const NETWORK_NAME_PATTERN = "^[a-z0-9][a-z0-9_-]{0,31}$";

/** Chain families the address validator knows. */
export const FamilySchema = T.Union([
  T.Literal("evm"),
  T.Literal("btc"),
  T.Literal("tron"),
  T.Literal("solana"),
  T.Literal("generic"),
]);

const RiskLevelSchema = T.Union([T.Literal("low"), T.Literal("medium"), T.Literal("high"), T.Literal("severe")]);

const strict = { additionalProperties: false } as const;
const PositiveInt = (def: number, max = 2 ** 31) => T.Integer({ minimum: 1, maximum: max, default: def });
const NonNegInt = (def: number) => T.Integer({ minimum: 0, default: def });

/** Most bytes one upstream answer may have unless `[networks.X] max_response_bytes` says otherwise: 32 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** The highest delivery rate limit an account or the config may set, in deliveries a second. */
export const MAX_DELIVERY_RPS = 10_000;

/** Optional metadata of a token contract on a followed network (docs/reference.md, "Following a chain"). */
export const TokenSchema = T.Object(
  { symbol: T.Optional(T.String({ minLength: 1, maxLength: 32 })), decimals: T.Integer({ minimum: 0, maximum: 36 }) },
  strict,
);

export const NetworkSchema = T.Object(
  {
    family: FamilySchema,
    decimals: T.Integer({ minimum: 0, maximum: 36, default: 18 }),
    confirmations: PositiveInt(1, 10_000),
    get_block_cost: NonNegInt(0),
    // Upstream nodes, tried in order with failover: the follower reads from them, /rpc forwards to them.
    rpc_urls: T.Array(T.String({ minLength: 1 }), { default: [] }),
    follow: T.Boolean({ default: false }),
    start_height: T.Union([T.Literal("latest"), T.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })], { default: "latest" }),
    poll_interval_ms: PositiveInt(2000, 3_600_000),
    max_reorg_depth: PositiveInt(64, 10_000),
    // Reorgs a follower applies per minute before it holds the network for the rest of it; 0 = no limit.
    max_reorgs_per_minute: T.Integer({ minimum: 0, maximum: 10_000, default: 6 }),
    // The chain id the upstreams must be on (evm: eth_chainId; tron: the last 4 bytes of the genesis
    // block id); absent: the id the first upstream answered.
    chain_id: T.Optional(T.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    // tron: sent as the TRON-PRO-API-KEY header (TronGrid); $CHAINWATCH_<SLUG>_API_KEY wins when set.
    api_key: T.Optional(T.String({ minLength: 1, maxLength: 256 })),
    rpc_timeout_ms: PositiveInt(10_000, 120_000),
    // Most bytes one upstream answer may have; the follower's read-ahead holds about this much at most.
    max_response_bytes: PositiveInt(DEFAULT_MAX_RESPONSE_BYTES, 2 ** 31),
    // Keys are contract addresses: evm ones lower-cased by loadConfig, tron ones checked as base58 T… addresses.
    tokens: T.Record(T.String(), TokenSchema, { default: {} }),
    // btc family only (loadConfig refuses them elsewhere and fills a btc network's absent ones from
    // BTC_ADDRESS_DEFAULTS): the address forms watches and orders accept, so a Litecoin or regtest
    // network refuses Bitcoin mainnet addresses and accepts its own.
    bech32_hrp: T.Optional(T.String({ pattern: "^[a-z0-9]{1,83}$", description: "1-83 lower-case letters and digits, e.g. \"bc\" or \"tb\"" })),
    p2pkh_version: T.Optional(T.Integer({ minimum: 0, maximum: 255 })),
    p2sh_version: T.Optional(T.Integer({ minimum: 0, maximum: 255 })),
    // btc family only: the `chain` Bitcoin Core's getblockchaininfo must answer ("main", "test",
    // "regtest"); absent: the chain the first upstream answered, as for chain_id.
    chain: T.Optional(T.String({ pattern: "^[a-z0-9_-]{1,32}$", description: "1-32 of a-z, 0-9, _ and -, e.g. \"main\" or \"regtest\"" })),
  },
  strict,
);

/** A btc-family network's address forms when its table names none: Bitcoin mainnet's (bc1…, 1…, 3…). */
export const BTC_ADDRESS_DEFAULTS = Object.freeze({ bech32_hrp: "bc", p2pkh_version: 0x00, p2sh_version: 0x05 });

export const RatesSchema = T.Object(
  { address_activity: NonNegInt(0), payments: NonNegInt(0) },
  strict,
);

/** A network with every follower key at its schema default. */
function network(
  family: Static<typeof FamilySchema>,
  decimals: number,
  confirmations: number,
  get_block_cost: number,
  tokens: Record<string, Static<typeof TokenSchema>> = {},
): Static<typeof NetworkSchema> {
  return Value.Default(NetworkSchema, { family, decimals, confirmations, get_block_cost, tokens }) as Static<typeof NetworkSchema>;
}

/** Tether USD on Tron mainnet, the token most payments there settle in. */
export const TRON_USDT = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t";

/** Networks shipped when the config names none; a config's [networks.X] tables add to or override these. */
export const DEFAULT_NETWORKS: Record<string, Static<typeof NetworkSchema>> = {
  eth: network("evm", 18, 12, 20),
  bsc: network("evm", 18, 15, 20),
  polygon: network("evm", 18, 64, 20),
  btc: network("btc", 8, 2, 50),
  tron: network("tron", 6, 19, 20, { [TRON_USDT]: { symbol: "USDT", decimals: 6 } }),
  sol: network("solana", 9, 32, 30),
};

/** The whole configuration file; every key optional, defaults filled in by `loadConfig`. */
export const ConfigSchema = T.Object(
  {
    environment: T.String({ minLength: 1, default: "production" }),
    server: T.Object(
      {
        host: T.String({ minLength: 1, default: "127.0.0.1" }),
        port: T.Integer({ minimum: 0, maximum: 65535, default: 8787 }),
        trust_proxy: T.Boolean({ default: false }),
        body_limit_bytes: PositiveInt(1_048_576),
      },
      { ...strict, default: {} },
    ),
    database: T.Object(
      { url: T.String({ minLength: 1, default: "sqlite://./data/chainwatch.db" }) },
      { ...strict, default: {} },
    ),
    secrets: T.Object(
      { master_key_file: T.String({ minLength: 1, default: "./data/master.key" }) },
      { ...strict, default: {} },
    ),
    ingest: T.Object(
      {
        token: T.String({ default: "" }),
        body_limit_bytes: PositiveInt(16 * 1024 * 1024),
        // How far above the stored tip a block may land; keeps one bogus height from pinning the tip.
        max_height_jump: PositiveInt(10_000, Number.MAX_SAFE_INTEGER),
      },
      { ...strict, default: {} },
    ),
    rate_limit: T.Object({ per_key_rps: PositiveInt(10, 1_000_000) }, { ...strict, default: {} }),
    delivery: T.Object(
      {
        interval_seconds: PositiveInt(1, 3600),
        timeout_ms: PositiveInt(5000, 120_000),
        concurrency: PositiveInt(32, 1024),
        // Eleven attempts use each wait of the default schedule once: the last comes 79.6 hours (3.3 days) after the first.
        max_attempts: PositiveInt(11, 100),
        backoff_seconds: T.Array(T.Integer({ minimum: 0 }), {
          minItems: 1,
          default: [5, 60, 300, 1800, 7200, 18000, 36000, 50400, 86400, 86400],
        }),
        // Hours of nothing but failed attempts after which an account's webhook is switched off; 0: never.
        disable_after_hours: T.Integer({ minimum: 0, maximum: 87_600, default: 120 }),
        lease_seconds: PositiveInt(60, 3600),
        shutdown_grace_ms: PositiveInt(10_000, 600_000),
        allow_private_targets: T.Boolean({ default: false }),
        egress_ips: T.Array(T.String(), { default: [] }),
        // Most deliveries a second to the webhook of an account that set no limit of its own; 0: none.
        max_rps: T.Integer({ minimum: 0, maximum: MAX_DELIVERY_RPS, default: 0 }),
      },
      { ...strict, default: {} },
    ),
    billing: T.Object(
      {
        enabled: T.Boolean({ default: true }),
        rates: T.Record(T.String(), RatesSchema, {
          default: {
            production: { address_activity: 50, payments: 100 },
            sandbox: { address_activity: 5, payments: 10 },
          },
        }),
      },
      { ...strict, default: {} },
    ),
    events: T.Object({ retention_days: PositiveInt(30, 36_500) }, { ...strict, default: {} }),
    // `serve`'s JSON log lines from this level up: debug | info | warn | error.
    log: T.Object(
      { level: T.Union([T.Literal("debug"), T.Literal("info"), T.Literal("warn"), T.Literal("error")], { default: "info" }) },
      { ...strict, default: {} },
    ),
    aml: T.Object(
      {
        provider: T.Union([T.Literal("local"), T.Literal("http")], { default: "local" }),
        risk_list: T.String({ default: "" }),
        fail_levels: T.Array(RiskLevelSchema, { default: ["high", "severe"] }),
        http_url: T.String({ default: "" }),
        http_timeout_ms: PositiveInt(5000, 120_000),
        // Like delivery.allow_private_targets, for http_url alone: a screening sidecar on 127.0.0.1.
        allow_private_targets: T.Boolean({ default: false }),
      },
      { ...strict, default: {} },
    ),
    // JSON-RPC endpoint: credits per method; `default` for methods not listed. Block reads cost the
    // network's get_block_cost unless listed here.
    // flush_interval_seconds: how often /rpc charges, kept in memory, are written (the most a crash can leave unbilled).
    // credit_slice: credits a daemon sets aside from an account's balance at a time for its /rpc calls.
    // extra_methods: names forwarded beside the built-in allow-list (checked by loadConfig).
    // response_bytes_per_credit: one more credit per this many bytes of a node's answer; 0 = none.
    rpc: T.Object(
      {
        costs: T.Record(T.String({ minLength: 1 }), T.Integer({ minimum: 0 }), { default: {} }),
        flush_interval_seconds: PositiveInt(1, 60),
        credit_slice: PositiveInt(100, 1_000_000_000),
        extra_methods: T.Array(T.String(), { default: [] }),
        response_bytes_per_credit: NonNegInt(1024 * 1024),
      },
      { ...strict, default: {} },
    ),
    // The account holders' web cabinet at /cabinet/ (docs/reference.md §11). public_url: the address sign-in
    // links start with when the daemon is reached through a proxy; empty: http://<server.host>:<port>.
    cabinet: T.Object(
      { enabled: T.Boolean({ default: true }), public_url: T.String({ default: "" }) },
      { ...strict, default: {} },
    ),
    // additionalProperties: a Record only checks keys matching its pattern; refuse the others.
    networks: T.Record(T.String({ pattern: NETWORK_NAME_PATTERN }), NetworkSchema, { default: {}, additionalProperties: false }),
  },
  strict,
);

export type Config = Static<typeof ConfigSchema>;
export type NetworkConfig = Static<typeof NetworkSchema>;
export type TokenConfig = Static<typeof TokenSchema>;
export type Family = Static<typeof FamilySchema>;
