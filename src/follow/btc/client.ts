import type { UpstreamPool } from "../../upstream/pool.ts";
import { CLOSE_ARRAY, CLOSE_OBJECT, closingQuote, MAX_JSON_DEPTH, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from "../../lib/json-depth.ts";
import { MalformedUpstreamData, preview } from "../core/upstream-data.ts";

/**
 * A Bitcoin Core JSON-RPC call that got no usable answer: no upstream answered, or the node
 * answered an error. Thrown like any reader failure (core/upstream-data.ts says why); its `code`
 * lets a source tell a height out of range or a transaction gone from no answer.
 */
export class BtcRpcError extends Error {
  constructor(
    message: string,
    /** The node's JSON-RPC error code (-8: a parameter out of range); null when no node answered. */
    readonly code: number | null,
  ) {
    super(message);
    this.name = "BtcRpcError";
  }
}

/** Bitcoin Core's JSON-RPC over a network's upstream pool (failover, backoff and the size cap live in the pool). */
export type BtcClient = {
  /**
   * One call; its result with every `"value"` number kept as the decimal text the node printed
   * (see parseExactValues; `options.sites`, where the result keeps them, when its shape is known;
   * `options.onAnswer` as the pool's). Throws BtcRpcError when no upstream answers or the node
   * answers an error.
   */
  call(method: string, params: unknown[], options?: CallOptions): Promise<unknown>;
  /**
   * One method called once per entry of `paramsList`, in one batch: one request, one answer. Each
   * call's outcome is its own, in the list's order: a result (values exact, as call's) or the
   * BtcRpcError the node answered for it. Throws, as call does, when no upstream answers or the
   * answer is not one reply per call.
   */
  callEach(method: string, paramsList: unknown[][], options?: CallOptions): Promise<({ result: unknown } | { error: BtcRpcError })[]>;
  /** The same client, adding the size of every answer it reads to `meter.bytes` (what a block took to read). */
  metered(meter: { bytes: number }): BtcClient;
};

/** Where the result keeps its amounts, when its shape is known; a call to make once the node has answered (upstream/pool.ts SendOptions). */
export type CallOptions = { sites?: AmountSites; onAnswer?: () => void };

// Characters of a node's answer the scan below looks at, besides JSON's brackets and quote (lib/json-depth.ts).
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
/** JSON's whitespace: any other character between tokens makes the text no JSON at all. */
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
/** What a JSON number token is made of after its first digit (it ends at `,` `}` `]` or whitespace). */
const isNumberPart = (c: number) => isDigit(c) || c === DOT || c === 0x65 || c === 0x45 || c === PLUS || c === MINUS;

/** The message of an answer nesting too deep: the upstream pool's own, so a btc node's failure reads as any other's. */
const TOO_DEEP = `answered with JSON nested deeper than ${MAX_JSON_DEPTH} levels`;

/**
 * Parses a node's answer keeping each `"value"` number as the decimal string it was printed as
 * (`"0.00100000"`), so amounts never pass through a float: a double holds 15-17 significant
 * digits, and a Dogecoin amount in satoshi has up to 20. Other numbers parse as usual.
 *
 * One pass over the text finds the `"value"` keys (Bitcoin Core prints amounts with
 * ValueFromAmount: `"value":0.00100000`) and refuses an answer that nests deeper than
 * MAX_JSON_DEPTH before JSON.parse builds it, which the upstream pool's scan would do in a second
 * pass (the client asks the pool to skip it). It walks the text as the pool's scan does
 * (lib/json-depth.ts): strings are skipped whole, so text inside one is never taken for a key or a
 * bracket, and an unclosed string ends the scan (JSON.parse then refuses the text). A key is a
 * string whose text is exactly `value` followed by `:`; the number after it (`-`, a digit, then
 * digits, `.`, `e`, `E`, `+`, `-`) is noted by where it starts and ends.
 *
 * The text is then parsed as it is, and each numeric `value` of the result, in the text's order,
 * is replaced by the text of the next noted number. The two agree one to one unless an object
 * repeats a key (JSON.parse keeps the last) or has a key starting with a digit (an object lists
 * index-like keys first, out of the text's order): then, or if any noted number does not parse to
 * the number it replaces, the text is parsed again with every noted number quoted, which is exact
 * in every case. Parsing the text as it is costs a 100-transaction block about a fifth less CPU than
 * that rewrite, which copies the whole text once more.
 *
 * `sites`, when the answer's shape is known, names the objects that hold its amounts (a block's
 * outputs): only those are visited, not every key of the answer. They must then hold every noted
 * number, each in turn; a noted number anywhere else (a fork's extra field, a repeated key) leaves
 * one over, and the text is parsed again with every noted number quoted, as above.
 */
export function parseExactValues(text: string, sites?: AmountSites): unknown {
  // Start and end of each noted number, in pairs.
  const spans: number[] = [];
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const close = closingQuote(text, i);
      if (close < 0) break;
      if (close === i + 6 && text.startsWith("value", i + 1)) {
        let j = close + 1;
        while (isSpace(text.charCodeAt(j))) j++;
        if (text.charCodeAt(j) === COLON) {
          j++;
          while (isSpace(text.charCodeAt(j))) j++;
          const number = j;
          if (text.charCodeAt(j) === MINUS) j++;
          if (isDigit(text.charCodeAt(j))) {
            j++;
            while (isNumberPart(text.charCodeAt(j))) j++;
            spans.push(number, j);
            // Nothing between the key and the number's end opens or closes anything.
            i = j - 1;
            continue;
          }
        }
      }
      i = close;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > MAX_JSON_DEPTH) throw new Error(TOO_DEEP);
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  const parsed: unknown = JSON.parse(text);
  if (spans.length === 0) return parsed;
  const placed = { next: 0, agree: true };
  if (sites) sites(parsed, (holder) => placeValue(holder, text, spans, placed));
  else placeValues(parsed, text, spans, placed);
  return placed.agree && placed.next === spans.length ? parsed : parseQuoted(text, spans);
}

/**
 * Where a parsed answer keeps its amounts: calls `visit` with each object that holds one under
 * `value`, in the text's order (an array's items in turn). Anything of another shape is passed
 * over, not refused: the shape check that follows refuses it.
 */
export type AmountSites = (answer: unknown, visit: (holder: unknown) => void) => void;

/** Replaces a holder's numeric `value` with the text of the next span, as placeValues does each. */
function placeValue(holder: unknown, text: string, spans: number[], placed: { next: number; agree: boolean }): void {
  if (typeof holder !== "object" || holder === null || !placed.agree) return;
  const record = holder as Record<string, unknown>;
  const v = record.value;
  if (typeof v !== "number") return;
  const at = placed.next;
  const printed = at < spans.length ? text.slice(spans[at], spans[at + 1]) : "";
  if (Number(printed) !== v || printed === "") {
    placed.agree = false;
    return;
  }
  record.value = printed;
  placed.next = at + 2;
}

/**
 * Replaces each numeric `value` of a parsed answer, depth first in key order (the text's order),
 * with the text of the next span; stops agreeing at a key starting with a digit, or at a span that
 * is missing or parses to another number. Recursion is bounded: the scan refused anything deeper
 * than MAX_JSON_DEPTH.
 */
function placeValues(node: unknown, text: string, spans: number[], placed: { next: number; agree: boolean }): void {
  if (typeof node !== "object" || node === null || !placed.agree) return;
  if (Array.isArray(node)) {
    for (const item of node) placeValues(item, text, spans, placed);
    return;
  }
  const record = node as Record<string, unknown>;
  for (const key in record) {
    if (isDigit(key.charCodeAt(0))) {
      placed.agree = false;
      return;
    }
    const v = record[key];
    if (key === "value" && typeof v === "number") placeValue(record, text, spans, placed);
    else placeValues(v, text, spans, placed);
  }
}

/** The text parsed with every noted number quoted: exact whatever the text repeats. */
function parseQuoted(text: string, spans: number[]): unknown {
  const pieces: string[] = [];
  let copied = 0;
  for (let i = 0; i < spans.length; i += 2) {
    pieces.push(text.slice(copied, spans[i]), '"', text.slice(spans[i], spans[i + 1]), '"');
    copied = spans[i + 1];
  }
  pieces.push(text.slice(copied));
  return JSON.parse(pieces.join(""));
}

type Reply = { result?: unknown; error?: { code?: unknown; message?: unknown } | null; id?: unknown };

/**
 * A client of Bitcoin Core's JSON-RPC (and of the forks that keep it: Litecoin, Dogecoin, …). The
 * node's URL carries its credentials (`http://user:pass@host:8332/`), sent as basic auth by fetch
 * and never shown (the pool labels upstreams by scheme, host and port). Every call goes as a batch
 * of one: Bitcoin Core answers a failing single call with HTTP 500, which the pool would take for a
 * dead upstream and fail over from, while a batch is answered with HTTP 200 and the error inside.
 * `"jsonrpc": "1.0"` keeps the answer shape every version prints (`result` and `error`, one null).
 */
export function createBtcClient(pool: UpstreamPool, meter?: { bytes: number }): BtcClient {
  /** A batch of calls of `method` sent, and the node's answer parsed with its values exact (at the sites of each result, when given). */
  const send = async (method: string, paramsList: unknown[][], options: CallOptions = {}): Promise<unknown> => {
    const calls = paramsList.map((params, id) => ({ jsonrpc: "1.0", id, method, params }));
    const { sites, onAnswer } = options;
    const parse = sites ? (text: string) => parseExactValues(text, resultSites(sites)) : parseExactValues;
    // parseExactValues bounds the nesting in its own pass: the pool's scan of the same text is skipped.
    const reply = await pool.send(JSON.stringify(calls), { parse, maxDepth: Number.POSITIVE_INFINITY, onAnswer });
    // An answer over max_response_bytes names the limit itself; "no upstream answered" would mislead.
    if (!reply.ok) throw new BtcRpcError(reply.code === "UPSTREAM_ANSWER_TOO_LARGE" ? reply.error : `${method}: no upstream answered: ${reply.error}`, null);
    if (meter) meter.bytes += reply.bytes;
    return reply.json;
  };
  return {
    async call(method, params, options) {
      const answer = await send(method, [params], options);
      if (!Array.isArray(answer) || answer.length !== 1 || typeof answer[0] !== "object" || answer[0] === null) {
        // A node refusing the whole batch (a parse error) answers one error object, not an array.
        const error = (answer as Reply | null)?.error;
        if (error) throw nodeError(method, error);
        throw new MalformedUpstreamData(`${method}: the node did not answer a batch of one call with one answer (${preview(answer)})`);
      }
      const r = answer[0] as Reply;
      if (r.error !== null && r.error !== undefined) throw nodeError(method, r.error);
      if (r.result === undefined) throw new MalformedUpstreamData(`${method}: the node's answer has neither result nor error (${preview(r)})`);
      return r.result;
    },
    async callEach(method, paramsList, options) {
      const n = paramsList.length;
      const answer = await send(method, paramsList, options);
      if (!Array.isArray(answer)) {
        // A node refusing the whole batch (a parse error) answers one error object, not an array.
        const error = (answer as Reply | null)?.error;
        if (error) throw nodeError(method, error);
        throw new MalformedUpstreamData(`${method}: the node did not answer a batch of ${n} calls with a list (${preview(answer)})`);
      }
      if (answer.length !== n) throw new MalformedUpstreamData(`${method}: the node answered a batch of ${n} calls with ${answer.length} answers`);
      // Matched by id: JSON-RPC lets a server answer a batch in any order.
      const byId: Reply[] = [];
      for (const r of answer as Reply[]) {
        const id = typeof r === "object" && r !== null ? r.id : undefined;
        if (typeof id !== "number" || !Number.isInteger(id) || id < 0 || id >= n || byId[id] !== undefined) {
          throw new MalformedUpstreamData(`${method}: the node answered a batch of ${n} calls with an answer to no call of it (${preview(r)})`);
        }
        byId[id] = r;
      }
      // As many answers as calls, each to another call: every call has its answer.
      return byId.map((r) => {
        if (r.error !== null && r.error !== undefined) return { error: nodeError(method, r.error) };
        if (r.result === undefined) throw new MalformedUpstreamData(`${method}: the node's answer has neither result nor error (${preview(r)})`);
        return { result: r.result };
      });
    },
    metered: (m) => createBtcClient(pool, m),
  };
}

/** The sites of each result of a batch answer (the replies in the text's order). */
function resultSites(sites: AmountSites): AmountSites {
  return (answer, visit) => {
    if (Array.isArray(answer)) for (const reply of answer) sites((reply as Reply | null)?.result, visit);
  };
}

/** The node's error as thrown: its code and message, escaped and cut short (it is the node's text). */
function nodeError(method: string, error: { code?: unknown; message?: unknown }): BtcRpcError {
  const code = typeof error.code === "number" && Number.isSafeInteger(error.code) ? error.code : null;
  return new BtcRpcError(`${method}: the node answered error ${code ?? "(no code)"}: ${preview(error.message ?? error, 160)}`, code);
}
