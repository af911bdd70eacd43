import type { UpstreamPool } from "../../upstream/pool.ts";
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
   * (see parseExactValues). Throws BtcRpcError when no upstream answers or the node answers an error.
   */
  call(method: string, params: unknown[]): Promise<unknown>;
  /** The same client, adding the size of every answer it reads to `meter.bytes` (what a block took to read). */
  metered(meter: { bytes: number }): BtcClient;
};

// `"value": <JSON number>`, as Bitcoin Core prints amounts (ValueFromAmount: `0.00100000`). In
// valid JSON the closing quote of `"value"` ends a string and `:` follows only a key, so this
// matches keys alone, never text inside a string; the number is captured whole (a number token
// ends at `,` `}` `]` or whitespace, none of which the class holds).
const VALUE_NUMBER = /"value"(\s*):(\s*)(-?[0-9][0-9.eE+-]*)/g;

/**
 * Parses a node's answer keeping each `"value"` number as the decimal string it was printed as
 * (`"0.00100000"`), so amounts never pass through a float: a double holds 15-17 significant
 * digits, and a Dogecoin amount in satoshi has up to 20. Other numbers parse as usual.
 */
export function parseExactValues(text: string): unknown {
  return JSON.parse(text.replace(VALUE_NUMBER, '"value"$1:$2"$3"'));
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
  return {
    async call(method, params) {
      const reply = await pool.send(JSON.stringify([{ jsonrpc: "1.0", id: 0, method, params }]), { parse: parseExactValues });
      // An answer over max_response_bytes names the limit itself; "no upstream answered" would mislead.
      if (!reply.ok) throw new BtcRpcError(reply.code === "UPSTREAM_ANSWER_TOO_LARGE" ? reply.error : `${method}: no upstream answered: ${reply.error}`, null);
      if (meter) meter.bytes += reply.bytes;
      const answer = reply.json;
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
    metered: (m) => createBtcClient(pool, m),
  };
}

/** The node's error as thrown: its code and message, escaped and cut short (it is the node's text). */
function nodeError(method: string, error: { code?: unknown; message?: unknown }): BtcRpcError {
  const code = typeof error.code === "number" && Number.isSafeInteger(error.code) ? error.code : null;
  return new BtcRpcError(`${method}: the node answered error ${code ?? "(no code)"}: ${preview(error.message ?? error, 160)}`, code);
}
