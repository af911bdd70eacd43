import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sha256 } from "@noble/hashes/sha2.js";
import { createBase58check, hex } from "@scure/base";

// A java-tron full node's HTTP API on 127.0.0.1, for tests and benches: it answers
// /wallet/getblock, /wallet/getnowblock, /wallet/getblockbynum, /wallet/gettransactioninfobyblocknum
// and /wallet/triggerconstantcontract from a block map the test edits. Every body is one of the
// recorded bodies of test/fixtures/tron/ (README there says where each comes from) with the test's
// ids, addresses, amounts and logs put in, printed as java-tron prints them: addresses base58check
// with `visible: true`, hex without; protobuf defaults (0, empty) left out; `{}` for what it lacks.

type Rec = Record<string, any>;

const FIXTURES = join(import.meta.dir, "../fixtures/tron");
const fixture = (name: string): Rec => JSON.parse(readFileSync(join(FIXTURES, name), "utf8"));
const HEADER = fixture("getblock-header.json");
const TRANSFER_TX = fixture("transaction-transfer.json");
const TRANSFER_INFO = fixture("transactioninfo-transfer.json");
const TRIGGER_TX = fixture("transaction-trigger.json");
const TRIGGER_INFO = fixture("transactioninfo-trigger.json");
const CONSTANT_CALL = fixture("triggerconstantcontract.json");

const base58check = createBase58check(sha256);
const TRANSFER_TOPIC = "ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

/** Tron mainnet's chain id, the last 4 bytes of its genesis block id (what its eth_chainId answers). */
export const MAINNET_CHAIN_ID = 0x2b6653dc;

/** A base58check `T…` address whose 20-byte account id is `n` (a number, or 40 hex digits). */
export function tronAddress(n: number | string): string {
  const id = typeof n === "number" ? n.toString(16).padStart(40, "0") : n;
  return base58check.encode(hex.decode(`41${id}`));
}

/** The 21-byte hex form (`41…`) of a `T…` address. */
export function hexAddress(address: string): string {
  return hex.encode(base58check.decode(address));
}

/**
 * A block id as java-tron makes them: the height in the first 8 bytes. `tag` (hex digits) tells
 * chains apart; the genesis block's last 4 bytes are the chain id.
 */
export function blockIdOf(tag: string, height: number, chainId = MAINNET_CHAIN_ID): string {
  const num = height.toString(16).padStart(16, "0");
  if (height === 0) return `${num}${tag.padEnd(40, "0")}${chainId.toString(16).padStart(8, "0")}`;
  return `${num}${tag.padEnd(48, "0")}`;
}

/** A transaction id (64 hex digits) from any label. */
export function txIdOf(label: string): string {
  return createHash("sha256").update(label).digest("hex");
}

/** What a test puts in a block; `id` defaults to one derived from the block and the position. */
export type FakeTronTx =
  | { kind: "trx"; id?: string; from: string; to: string; amount: number | bigint }
  /** A TRC-20 `transfer` call on `token`; `result` is the contract's outcome (SUCCESS unless told). */
  | { kind: "trc20"; id?: string; from: string; token: string; to: string; value: bigint; result?: string }
  | { kind: "trc10"; id?: string; from: string; to: string; asset: string; amount: number }
  /** Hand-made JSON, printed as given (for hostile answers): the block's entry and its info. */
  | { kind: "raw"; tx: Rec; info: Rec };

export type TronFakeBlock = { height: number; id: string; parentId: string; timestampMs: number; txs: FakeTronTx[] };

/** Blocks `from`..`to` of chain `tag`, each the parent of the next; the first's parent is `parent` (or chain `tag` at from − 1). */
export function tronChain(
  tag: string,
  from: number,
  to: number,
  opts: { parent?: string; txs?: Record<number, FakeTronTx[]>; chainId?: number } = {},
): TronFakeBlock[] {
  const out: TronFakeBlock[] = [];
  let parentId = opts.parent ?? (from > 0 ? blockIdOf(tag, from - 1, opts.chainId) : "0".repeat(64));
  for (let h = from; h <= to; h++) {
    const id = blockIdOf(tag, h, opts.chainId);
    out.push({ height: h, id, parentId, timestampMs: h === 0 ? 0 : 1_777_445_121_000 + h * 3000, txs: opts.txs?.[h] ?? [] });
    parentId = id;
  }
  return out;
}

export type TronNode = {
  url: string;
  /** Height → block; the head is the highest height unless `head` is set. */
  blocks: Map<number, TronFakeBlock>;
  head: number | null;
  /** While true, every request gets HTTP 503. */
  down: boolean;
  /** Milliseconds each answer waits before it is sent (a node at some distance); 0 by default. */
  latencyMs: number;
  /** When set, a request whose TRON-PRO-API-KEY header differs gets HTTP 401. */
  apiKey: string | null;
  /** decimals() of TRC-20 contracts; any other address has no contract. */
  tokens: Map<string, number>;
  /** Answers instead of the node when it returns a Response (an error page, an `{"Error"}` body). */
  override: ((path: string, body: Rec) => Response | null) | null;
  /** Edits a getblockbynum answer before it is sent (the stored block is left alone). */
  rewriteBlock: ((block: Rec) => Rec) | null;
  /** Every request: path and the API key header it carried. */
  requests: { path: string; key: string | null }[];
  stop(): void;
};

export function startTronNode(opts: { blocks?: TronFakeBlock[]; tokens?: Record<string, number> } = {}): TronNode {
  const node: TronNode = {
    url: "",
    blocks: new Map((opts.blocks ?? []).map((b) => [b.height, b])),
    head: null,
    down: false,
    latencyMs: 0,
    apiKey: null,
    tokens: new Map(Object.entries(opts.tokens ?? {})),
    override: null,
    rewriteBlock: null,
    requests: [],
    stop: () => server.stop(true),
  };
  const head = () => node.head ?? Math.max(-1, ...node.blocks.keys());
  // Rendered bodies per block object: a block replaced in the map is rendered afresh.
  const rendered = new WeakMap<TronFakeBlock, Map<string, string>>();
  const once = (b: TronFakeBlock, key: string, render: () => unknown): string => {
    let bodies = rendered.get(b);
    if (!bodies) rendered.set(b, (bodies = new Map()));
    let text = bodies.get(key);
    if (text === undefined) bodies.set(key, (text = JSON.stringify(render())));
    return text;
  };
  const json = (text: string) => new Response(text, { headers: { "Content-Type": "application/json" } });

  const answer = (path: string, body: Rec): Response => {
    const visible = body.visible === true;
    const at = (n: number) => (n >= 0 && n <= head() ? node.blocks.get(n) : undefined);
    switch (path) {
      case "/wallet/getblock": {
        const which = body.id_or_num === undefined ? head() : Number(body.id_or_num);
        if (which < 0) return json(JSON.stringify({ Error: "num must be non-positive number." }));
        const b = at(which);
        if (!b) return json("{}");
        return json(once(b, `getblock:${visible}:${body.detail === true}`, () => (body.detail === true ? fullBlock(b, visible) : headerOf(b, visible))));
      }
      case "/wallet/getnowblock": {
        const b = at(head());
        return json(b ? once(b, `full:${visible}`, () => fullBlock(b, visible)) : "{}");
      }
      case "/wallet/getblockbynum": {
        const b = at(Number(body.num ?? 0));
        if (!b) return json("{}");
        if (node.rewriteBlock) return json(JSON.stringify(node.rewriteBlock(fullBlock(b, visible))));
        return json(once(b, `full:${visible}`, () => fullBlock(b, visible)));
      }
      case "/wallet/gettransactioninfobyblocknum": {
        const num = Number(body.num ?? 0);
        if (num <= 0) return json("{}");
        const b = at(num);
        return json(b ? once(b, `infos:${visible}`, () => b.txs.map((tx, i) => infoOf(b, tx, i, visible))) : "[]");
      }
      case "/wallet/triggerconstantcontract":
        return Response.json(constantCall(String(body.contract_address), String(body.function_selector), node.tokens));
      default:
        return new Response("<html><body>404 Not Found</body></html>", { status: 404, headers: { "Content-Type": "text/html" } });
    }
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const key = req.headers.get("TRON-PRO-API-KEY");
      node.requests.push({ path, key });
      if (node.latencyMs > 0) await Bun.sleep(node.latencyMs);
      if (node.down) return new Response("unavailable", { status: 503 });
      // Not a recorded TronGrid body: a refusal of a request without the right key.
      if (node.apiKey !== null && key !== node.apiKey) return Response.json({ Error: "ApiKey not exists" }, { status: 401 });
      const text = await req.text();
      const body = (text ? JSON.parse(text) : {}) as Rec;
      return node.override?.(path, body) ?? answer(path, body);
    },
  });
  node.url = server.url.href.replace(/\/$/, "");
  return node;
}

/** An address as java-tron prints it: base58check with `visible`, else 41 + hex. */
const printed = (address: string, visible: boolean) => (visible ? address : hexAddress(address));
const word = (value: bigint | string) => (typeof value === "bigint" ? value.toString(16) : value).padStart(64, "0");

function headerOf(b: TronFakeBlock, visible: boolean): Rec {
  const out = structuredClone(HEADER);
  out.blockID = b.id;
  const raw = out.block_header.raw_data;
  // Protobuf defaults are left out: the genesis block has no number, parent or timestamp.
  if (b.height === 0) delete raw.number;
  else raw.number = b.height;
  if (/^0+$/.test(b.parentId)) delete raw.parentHash;
  else raw.parentHash = b.parentId;
  if (b.timestampMs === 0) delete raw.timestamp;
  else raw.timestamp = b.timestampMs;
  if (visible) raw.witness_address = base58check.encode(hex.decode(raw.witness_address));
  return out;
}

function fullBlock(b: TronFakeBlock, visible: boolean): Rec {
  const out = headerOf(b, visible);
  if (b.txs.length > 0) out.transactions = b.txs.map((tx, i) => txOf(b, tx, i, visible));
  return out;
}

const idOf = (b: TronFakeBlock, tx: FakeTronTx, i: number) => (tx.kind !== "raw" && tx.id ? tx.id : txIdOf(`${b.id}:${i}`));

function txOf(b: TronFakeBlock, tx: FakeTronTx, i: number, visible: boolean): Rec {
  if (tx.kind === "raw") return tx.tx;
  const id = idOf(b, tx, i);
  if (tx.kind === "trc20") {
    const out = structuredClone(TRIGGER_TX);
    out.txID = id;
    out.ret = [{ contractRet: tx.result ?? "SUCCESS" }];
    const value = out.raw_data.contract[0].parameter.value;
    value.owner_address = printed(tx.from, visible);
    value.contract_address = printed(tx.token, visible);
    value.data = `a9059cbb${word(hexAddress(tx.to).slice(2))}${word(tx.value)}`;
    return out;
  }
  const out = structuredClone(TRANSFER_TX);
  out.txID = id;
  const contract = out.raw_data.contract[0];
  if (tx.kind === "trc10") {
    contract.type = "TransferAssetContract";
    contract.parameter.type_url = "type.googleapis.com/protocol.TransferAssetContract";
    contract.parameter.value = { amount: tx.amount, asset_name: tx.asset, owner_address: printed(tx.from, visible), to_address: printed(tx.to, visible) };
    return out;
  }
  // JSON.stringify cannot print a bigint: amounts beyond 2^53 are spliced in as digits (rawJSON).
  const amount = typeof tx.amount === "bigint" && tx.amount > BigInt(Number.MAX_SAFE_INTEGER) ? (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(tx.amount.toString()) : Number(tx.amount);
  contract.parameter.value = { amount, owner_address: printed(tx.from, visible), to_address: printed(tx.to, visible) };
  return out;
}

function infoOf(b: TronFakeBlock, tx: FakeTronTx, i: number, visible: boolean): Rec {
  if (tx.kind === "raw") return tx.info;
  const base = { id: idOf(b, tx, i), blockNumber: b.height, blockTimeStamp: b.timestampMs };
  if (tx.kind !== "trc20") return { ...structuredClone(TRANSFER_INFO), ...base };
  const out: Rec = { ...structuredClone(TRIGGER_INFO), ...base };
  out.contract_address = printed(tx.token, visible);
  delete out.internal_transactions;
  const result = tx.result ?? "SUCCESS";
  out.receipt.result = result;
  if (result !== "SUCCESS") {
    // A failed call keeps no logs; the info says FAILED and why (TransactionUtil.buildTransactionInfoInstance).
    delete out.log;
    out.result = "FAILED";
    out.resMessage = Buffer.from("REVERT opcode executed").toString("hex");
    return out;
  }
  out.log = [
    {
      // Util.convertLogAddressToTronAddress: with `visible`, the 20-byte address becomes 41… and base58.
      address: visible ? tx.token : hexAddress(tx.token).slice(2),
      topics: [TRANSFER_TOPIC, word(hexAddress(tx.from).slice(2)), word(hexAddress(tx.to).slice(2))],
      data: word(tx.value),
    },
  ];
  return out;
}

function constantCall(contract: string, selector: string, tokens: Map<string, number>): Rec {
  const decimals = tokens.get(contract);
  if (decimals === undefined) return { result: { code: "CONTRACT_VALIDATE_ERROR", message: "Smart contract is not exist." } };
  const out = structuredClone(CONSTANT_CALL);
  out.constant_result = [selector === "decimals()" ? word(BigInt(decimals)) : ""];
  return out;
}
