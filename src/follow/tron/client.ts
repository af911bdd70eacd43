import type { UpstreamPool } from "../../upstream/pool.ts";
import { preview } from "../core/upstream-data.ts";

/** The header TronGrid reads its API key from. */
export const TRON_API_KEY_HEADER = "TRON-PRO-API-KEY";

/**
 * A java-tron HTTP API call that got no usable answer: no upstream answered, or the node answered
 * `{"Error": …}`. Thrown like any reader failure (core/upstream-data.ts says why).
 */
export class TronApiError extends Error {
  constructor(
    message: string,
    /** True when a node answered (with its `Error`); false when none did. */
    readonly answered: boolean,
  ) {
    super(message);
    this.name = "TronApiError";
  }
}

/** A node's answer: parsed, and as the text it came in (for the rare number JSON.parse cannot hold exactly). */
export type TronAnswer = { json: unknown; text: string };

/** java-tron's HTTP API over a network's upstream pool (failover, backoff and the size cap live in the pool). */
export type TronClient = {
  /** POSTs a JSON body to `path` (`/wallet/getblock`); throws TronApiError when no upstream answers or the node answers an error. */
  post(path: string, body: Record<string, unknown>): Promise<TronAnswer>;
  /** The same client, adding the size of every answer it reads to `meter.bytes` (what a block took to read). */
  metered(meter: { bytes: number }): TronClient;
};

/**
 * A client of java-tron's HTTP API (the full node's port 8090, or TronGrid). Every call is a POST
 * of a JSON body to the call's path under each `rpc_urls` entry; with an API key, every request
 * carries it as `TRON-PRO-API-KEY`. The servlets answer failures with HTTP 200 and
 * `{"Error": "<exception class> : <message>"}`, which throws here with the node's message.
 */
export function createTronClient(pool: UpstreamPool, opts: { apiKey?: string | null }, meter?: { bytes: number }): TronClient {
  const headers = opts.apiKey ? { [TRON_API_KEY_HEADER]: opts.apiKey } : undefined;
  return {
    async post(path, body) {
      const reply = await pool.send(JSON.stringify(body), { path, headers });
      // An answer over max_response_bytes names the limit itself; "no upstream answered" would mislead.
      if (!reply.ok) throw new TronApiError(reply.code === "UPSTREAM_ANSWER_TOO_LARGE" ? reply.error : `no upstream answered: ${reply.error}`, false);
      if (meter) meter.bytes += reply.bytes;
      const json = reply.json;
      if (typeof json === "object" && json !== null && !Array.isArray(json) && "Error" in json) {
        throw new TronApiError(`${path}: the node answered an error: ${preview((json as { Error: unknown }).Error, 160)}`, true);
      }
      return { json, text: reply.text };
    },
    metered: (m) => createTronClient(pool, opts, m),
  };
}
