import { type Static, Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { FAMILIES, type Family } from "../chain/family.ts";

/** Network slugs: what `[networks.<slug>]` may be called. */
export const NETWORK_NAME_PATTERN = "^[a-z0-9][a-z0-9_-]{0,31}$";

/** Chain families (chain/family.ts), each with an address codec in chain/address/. */
export const FamilySchema = T.Union(FAMILIES.map((family) => T.Literal(family)));

const RiskLevelSchema = T.Union([T.Literal("low"), T.Literal("medium"), T.Literal("high"), T.Literal("severe")]);

const strict = { additionalProperties: false } as const;
// Every key has a `description`: docs/config.md is generated from them (docs/generate.ts).
const PositiveInt = (def: number, max: number, description: string) => T.Integer({ minimum: 1, maximum: max, default: def, description });
const NonNegInt = (def: number, description: string) => T.Integer({ minimum: 0, default: def, description });

/** Most bytes one upstream answer may have unless `[networks.X] max_response_bytes` says otherwise: 32 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** The highest delivery rate limit an account or the config may set, in deliveries a second. */
export const MAX_DELIVERY_RPS = 10_000;

/** Optional metadata of a token contract on a followed network (docs/chains.md). */
export const TokenSchema = T.Object(
  {
    symbol: T.Optional(T.String({ minLength: 1, maxLength: 32, description: "The token's ticker, e.g. `USDT`" })),
    decimals: T.Integer({ minimum: 0, maximum: 36, description: "Decimals of its amounts; webhooks show amounts with this many" }),
  },
  strict,
);

export const NetworkSchema = T.Object(
  {
    family: T.Union(FamilySchema.anyOf, { description: "Chain family: which addresses are valid, and how the network is followed" }),
    decimals: T.Integer({ minimum: 0, maximum: 36, default: 18, description: "Decimals of the native coin" }),
    confirmations: PositiveInt(1, 10_000, "Confirmations a payment needs before a payment order counts it as confirmed"),
    get_block_cost: NonNegInt(0, "Credits a block webhook costs, and an `eth_getBlockByNumber` or `eth_getBlockByHash` call on /rpc unless `[rpc.costs]` prices it"),
    rpc_urls: T.Array(T.String({ minLength: 1 }), {
      default: [],
      description: "Node URLs, tried in order with failover: the follower reads from them, /rpc forwards to them (btc: `http://user:password@host:port/`, sent as basic auth)",
    }),
    follow: T.Boolean({ default: false, description: "Read the chain from `rpc_urls` (evm, tron and btc networks; needs `rpc_urls`)" }),
    start_height: T.Union([T.Literal("latest"), T.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })], {
      default: "latest",
      description: "Where a follower with no stored block begins: `\"latest\"` (the node's head block) or a height",
    }),
    poll_interval_ms: PositiveInt(2000, 3_600_000, "How often the follower asks the node for new blocks"),
    max_reorg_depth: PositiveInt(64, 10_000, "Deepest reorg applied; a deeper one is refused and stops the follower until `chainwatch follow rewind`"),
    max_reorgs_per_minute: T.Integer({
      minimum: 0,
      maximum: 10_000,
      default: 6,
      description: "Reorgs a follower applies in any 60 s before it holds the network for the rest of the minute; 0: no limit",
    }),
    traces: T.Union([T.Literal("off"), T.Literal("debug"), T.Literal("parity")], {
      default: "off",
      description:
        'evm followers: trace every block to see native value moved inside contract calls (`"debug"`: debug_traceBlockByNumber with callTracer; `"parity"`: trace_block); a node without the method stops start-up',
    }),
    chain_id: T.Optional(
      T.Integer({
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        description: "evm and tron: the chain id every upstream must be on; unset: the id the first upstream answered",
      }),
    ),
    api_key: T.Optional(
      T.String({ minLength: 1, maxLength: 256, description: "tron: sent as `TRON-PRO-API-KEY` (TronGrid); `$CHAINWATCH_<SLUG>_API_KEY` wins when set" }),
    ),
    rpc_timeout_ms: PositiveInt(10_000, 120_000, "How long one request to a node may take"),
    quorum: PositiveInt(
      1,
      16,
      "Upstreams (`rpc_urls`), the reading one included, that must return the same block hash at a height before its block's events count as confirmed (payment orders, `min_confirmations` holds, late payments); 1: the reading node's word; more needs `follow = true` and as many distinct `rpc_urls`",
    ),
    quorum_timeout_seconds: PositiveInt(600, 604_800, "How long confirmations may wait for a `quorum` before a notice and a log line name the upstreams that disagree"),
    // The follower's read-ahead holds about this much at most.
    max_response_bytes: PositiveInt(DEFAULT_MAX_RESPONSE_BYTES, 2 ** 31, "Most bytes one answer of a node may have, for the follower and for /rpc"),
    // Keys are contract addresses: evm ones lower-cased by loadConfig, tron ones checked as base58 T… addresses.
    tokens: T.Record(T.String(), TokenSchema, {
      default: {},
      description: "Token metadata keyed by contract address (evm: `0x…`; tron: base58check `T…`)",
    }),
    // btc family only (loadConfig refuses them elsewhere; a btc network's absent ones are Bitcoin
    // mainnet's, BTC_ADDRESS_DEFAULTS of chain/address/btc.ts and BTC_MAX_MONEY_DEFAULT): the address
    // forms watches and orders accept, so a Litecoin or regtest network refuses Bitcoin mainnet
    // addresses and accepts its own, and the most an output may carry.
    bech32_hrp: T.Optional(
      T.String({
        pattern: "^[a-z0-9]{1,83}$",
        mustBe: "1-83 lower-case letters and digits, e.g. \"bc\" or \"tb\"",
        description: "btc: the bech32 prefix of the network's segwit addresses (`bc`, `tb`, `bcrt`, `ltc`); unset: `bc`",
      }),
    ),
    p2pkh_version: T.Optional(T.Integer({ minimum: 0, maximum: 255, description: "btc: the base58check version byte of P2PKH addresses; unset: 0" })),
    p2sh_version: T.Optional(T.Integer({ minimum: 0, maximum: 255, description: "btc: the base58check version byte of P2SH addresses; unset: 5" })),
    max_money: T.Optional(
      T.Integer({
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        description:
          "btc: the most one output, and one transaction's outputs together, may carry, in whole coins: the coin's consensus MAX_MONEY (Bitcoin and Bitcoin Cash 21000000, Litecoin 84000000, Dogecoin 10000000000); more is refused as malformed data; unset: 21000000",
      }),
    ),
    uri_scheme: T.Optional(
      T.String({
        pattern: "^[a-z][a-z0-9+.-]{0,31}$",
        mustBe: "a URI scheme: 1-32 lower-case letters, digits, +, . and -, starting with a letter, e.g. \"litecoin\"",
        description: "btc: the scheme of the BIP-21 payment URI the checkout page's QR code holds (`bitcoin:<address>?amount=…`); unset: `bitcoin`",
      }),
    ),
    symbol: T.Optional(
      T.String({
        minLength: 1,
        maxLength: 16,
        pattern: "^[A-Za-z0-9.$-]+$",
        mustBe: "1-16 letters, digits, ., $ and -, e.g. \"ETH\"",
        description: "The native coin's ticker, shown on the checkout page; unset: the shipped networks' own (ETH, BNB, POL, BTC, TRX, SOL), else the network's name in capitals",
      }),
    ),
    chain: T.Optional(
      T.String({
        pattern: "^[a-z0-9_-]{1,32}$",
        mustBe: "1-32 of a-z, 0-9, _ and -, e.g. \"main\" or \"regtest\"",
        description: "btc: the chain `getblockchaininfo` must answer (`main`, `test`, `regtest`, `signet`); unset: the one the first upstream answered",
      }),
    ),
  },
  strict,
);

/** A btc-family network's `max_money` when its table names none: Bitcoin's MAX_MONEY, 21 million coins. */
export const BTC_MAX_MONEY_DEFAULT = 21_000_000;

export const RatesSchema = T.Object(
  {
    address_activity: NonNegInt(0, "Credits a delivered `payment`, `payout` or `other` webhook costs"),
    payments: NonNegInt(0, "Credits a delivered `payment_order` webhook costs"),
  },
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
    environment: T.String({
      minLength: 1,
      default: "production",
      description: "Picks the prices in `billing.rates.<environment>`; `GET /v1/account` reports it",
    }),
    server: T.Object(
      {
        host: T.String({
          pattern: "^[A-Za-z0-9._:%-]{1,253}$",
          mustBe: 'a host name or an IP address, e.g. "127.0.0.1", "0.0.0.0" or "::1"',
          default: "127.0.0.1",
          description: "Address the HTTP server listens on; keep 127.0.0.1 behind a reverse proxy",
        }),
        port: T.Integer({ minimum: 0, maximum: 65535, default: 8787, description: "Port the HTTP server listens on" }),
        trust_proxy: T.Boolean({
          default: false,
          description: "false: the client IP is the socket peer; true: the first `X-Forwarded-For` entry (only behind a proxy you control)",
        }),
        body_limit_bytes: PositiveInt(1_048_576, 2 ** 31, "Largest request body of the signed API and /rpc; larger ones answer 413"),
        public_url: T.String({
          default: "",
          description:
            "The address payers reach chainwatch at (behind a proxy: its https address); every order's `checkout_url` starts with it; empty: `http://<server.host>:<server.port>`",
        }),
      },
      { ...strict, default: {}, description: "The HTTP server: the signed API, /rpc, /ingest/blocks, the cabinet, the checkout pages and /metrics" },
    ),
    database: T.Object(
      {
        url: T.String({
          minLength: 1,
          default: "sqlite://./data/chainwatch.db",
          description: "`sqlite://<file>` (one daemon), or `postgres://` / `postgresql://` (one or several daemons on one database)",
        }),
        connect_timeout_ms: PositiveInt(
          5000,
          600_000,
          "PostgreSQL: how long a query may wait for a connection (a free one in the pool, or a new one to the server) before it fails as database unavailable (503)",
        ),
        query_timeout_ms: PositiveInt(
          10_000,
          3_600_000,
          "PostgreSQL: how long one statement may run (the server's statement_timeout) or wait for an answer from a server that stalled, before it fails as database unavailable (503); migrations are not bounded",
        ),
        pool_size: T.Integer({
          minimum: 1,
          maximum: 1000,
          default: 10,
          description:
            "PostgreSQL: the most connections this process holds in its pool at once (plus one each for notifications, the webhooks' shared rate budget and leadership locks, when used); a statement that finds them all busy waits for one; an idle one closes after 10 s",
        }),
      },
      { ...strict, default: {}, description: "Where chainwatch stores everything" },
    ),
    secrets: T.Object(
      {
        master_key_file: T.String({
          minLength: 1,
          default: "./data/master.key",
          description: "The master key sealing API and webhook secrets at rest (mode 0600); `$CHAINWATCH_MASTER_KEY` wins when set",
        }),
      },
      { ...strict, default: {}, description: "The master key" },
    ),
    ingest: T.Object(
      {
        token: T.String({ default: "", description: "Bearer token of `POST /ingest/blocks`; empty: the endpoint answers 404" }),
        body_limit_bytes: PositiveInt(16 * 1024 * 1024, 2 ** 31, "Largest body `POST /ingest/blocks` takes"),
        // Keeps one bogus height from pinning the tip and confirming every payment at once.
        max_height_jump: PositiveInt(
          10_000,
          Number.MAX_SAFE_INTEGER,
          "How far above its network's stored tip a block may land (a network's first block may land anywhere)",
        ),
      },
      { ...strict, default: {}, description: "The indexer feed, `POST /ingest/blocks`" },
    ),
    rate_limit: T.Object(
      { per_key_rps: PositiveInt(10, 1_000_000, "Signed API requests a key may make in any 1000 ms; more answer 429") },
      { ...strict, default: {}, description: "The signed API's rate limit" },
    ),
    delivery: T.Object(
      {
        interval_seconds: PositiveInt(1, 3600, "How often the delivery loop looks for due webhooks (it also wakes when work is queued)"),
        timeout_ms: PositiveInt(5000, 120_000, "How long a receiver has to answer 2xx"),
        concurrency: PositiveInt(32, 1024, "Webhook POSTs in flight at once"),
        // Eleven attempts use each wait of the default schedule once: the last comes 79.6 hours (3.3 days) after the first.
        max_attempts: PositiveInt(11, 100, "Attempts before a delivery is `failed`; with the default schedule the last comes 79.6 hours after the first"),
        backoff_seconds: T.Array(T.Integer({ minimum: 0 }), {
          minItems: 1,
          default: [5, 60, 300, 1800, 7200, 18000, 36000, 50400, 86400, 86400],
          description: "Seconds to wait after a failed attempt: the nth value after attempt n; the last value repeats",
        }),
        disable_after_hours: T.Integer({
          minimum: 0,
          maximum: 87_600,
          default: 120,
          description: "Hours of nothing but failed attempts after which a webhook endpoint is switched off; 0: never",
        }),
        lease_seconds: PositiveInt(60, 3600, "How long a claimed delivery is its daemon's; must be longer than `timeout_ms`"),
        shutdown_grace_ms: PositiveInt(10_000, 600_000, "On SIGTERM, how long in-flight webhook POSTs may take to finish"),
        retention_days: PositiveInt(
          30,
          36_500,
          "Succeeded and failed deliveries (with their attempts) completed longer ago than this are deleted hourly; pending, held and paused ones never are",
        ),
        allow_private_targets: T.Boolean({
          default: false,
          description: "Allow webhook URLs that lead to loopback, private, link-local, CGNAT or cloud-metadata addresses",
        }),
        egress_ips: T.Array(T.String(), {
          default: [],
          description: "The addresses webhooks leave from, shown to account holders for their firewalls",
        }),
        max_rps: T.Integer({
          minimum: 0,
          maximum: MAX_DELIVERY_RPS,
          default: 0,
          description: "Most deliveries a second to a webhook endpoint that set no limit of its own; 0: no limit",
        }),
        max_replay_pending: PositiveInt(
          10_000,
          10_000_000,
          "Most replayed deliveries an account may have waiting (pending, held or paused); an events replay past it answers 429 until they drain",
        ),
      },
      { ...strict, default: {}, description: "The webhook delivery loop" },
    ),
    billing: T.Object(
      {
        enabled: T.Boolean({ default: true, description: "Charge credits for delivered webhooks and /rpc calls; false: free, still counted" }),
        rates: T.Record(T.String(), RatesSchema, {
          default: {
            production: { address_activity: 50, payments: 100 },
            sandbox: { address_activity: 5, payments: 10 },
          },
          description: "Webhook prices per environment; the one named by `environment` must exist while billing is on",
        }),
      },
      { ...strict, default: {}, description: "Credits" },
    ),
    events: T.Object(
      {
        retention_days: PositiveInt(30, 36_500, "Events older than this are pruned hourly, except those with a delivery still to make"),
      },
      { ...strict, default: {}, description: "Stored events" },
    ),
    log: T.Object(
      {
        level: T.Union([T.Literal("debug"), T.Literal("info"), T.Literal("warn"), T.Literal("error")], {
          default: "info",
          description: "`serve` logs JSON lines from this level up",
        }),
      },
      { ...strict, default: {}, description: "The daemon's log" },
    ),
    aml: T.Object(
      {
        provider: T.Union([T.Literal("local"), T.Literal("http")], {
          default: "local",
          description: "`local`: look senders up in `risk_list`; `http`: ask the service at `http_url`",
        }),
        risk_list: T.String({ default: "", description: "local: a JSON file of risky addresses; empty: every sender scores 0, `low`" }),
        fail_levels: T.Array(RiskLevelSchema, { default: ["high", "severe"], description: "Risk levels that make a screened order `failed` instead of `paid`" }),
        http_url: T.String({ default: "", description: "http: the screening service, POSTed `{network, address, tx_hash}`" }),
        http_timeout_ms: PositiveInt(5000, 120_000, "http: how long one screening request may take"),
        allow_private_targets: T.Boolean({
          default: false,
          description: "Let `http_url` lead to a loopback or private address (a screening sidecar on this machine)",
        }),
      },
      { ...strict, default: {}, description: "AML screening of payment orders" },
    ),
    // extra_methods are checked by loadConfig (the shape of a JSON-RPC method name).
    rpc: T.Object(
      {
        costs: T.Record(T.String({ minLength: 1 }), T.Integer({ minimum: 0 }), {
          default: {},
          description:
            "Credits per method (`default` for the unlisted: 1 when absent); unlisted block reads cost the network's `get_block_cost`, `eth_getLogs` 10",
        }),
        flush_interval_seconds: PositiveInt(1, 60, "How often /rpc charges kept in memory are written (the most a crash can leave unbilled)"),
        credit_slice: PositiveInt(100, 1_000_000_000, "Credits a daemon sets aside from an account's balance at a time for its /rpc calls"),
        extra_methods: T.Array(T.String(), { default: [], description: "Methods forwarded on evm networks beside the built-in allow-list" }),
        response_bytes_per_credit: NonNegInt(1024 * 1024, "One more credit per this many bytes of a node's answer; 0: none"),
      },
      { ...strict, default: {}, description: "The JSON-RPC proxy, `/rpc/<network>`" },
    ),
    cabinet: T.Object(
      {
        enabled: T.Boolean({ default: true, description: "Serve the account holders' web cabinet at /cabinet/" }),
        public_url: T.String({
          default: "",
          description: "The address sign-in links start with, behind a proxy; empty: `http://<server.host>:<server.port>`",
        }),
      },
      { ...strict, default: {}, description: "The account holders' web cabinet (docs/cabinet.md)" },
    ),
    checkout: T.Object(
      {
        per_ip_rps: PositiveInt(20, 1_000_000, "Requests a client address may make to the checkout pages (`/pay/…`) in any 1000 ms; more answer 429"),
        max_streams_per_ip: PositiveInt(
          10,
          1_000_000,
          "Live-update streams (`/pay/<token>/events`) one client address may hold open at once; one more answers 429 and the page polls instead",
        ),
        max_streams: PositiveInt(
          1000,
          1_000_000,
          "Live-update streams this daemon holds open at once, from every address; one more answers 503 and the page polls instead",
        ),
      },
      { ...strict, default: {}, description: "The payers' checkout pages, `/pay/<token>` (docs/checkout.md)" },
    ),
    // additionalProperties: a Record only checks keys matching its pattern; refuse the others.
    networks: T.Record(T.String({ pattern: NETWORK_NAME_PATTERN }), NetworkSchema, {
      default: {},
      additionalProperties: false,
      description: "Networks added to the six shipped, or changes to a shipped one",
    }),
  },
  strict,
);

export type Config = Static<typeof ConfigSchema>;
export type NetworkConfig = Static<typeof NetworkSchema>;
export type TokenConfig = Static<typeof TokenSchema>;
export type { Family };
