import type { UpstreamPool } from "../../upstream/pool.ts";

/**
 * A JSON-RPC call that got no usable answer: every upstream failed, or the node answered with an
 * `error`. Thrown like any reader failure (core/upstream-data.ts says why); its `code` lets a
 * source tell the node's refusal from no answer.
 */
export class RpcError extends Error {
  constructor(
    message: string,
    /** The node's JSON-RPC error code; null when no upstream answered. */
    readonly code: number | null,
  ) {
    super(message);
    this.name = "RpcError";
  }
}

type RpcReply = { id?: unknown; result?: unknown; error?: { code?: number; message?: string } };

/** One call's outcome in a batch: its result, or the node's error answer to it. */
export type Settled<T> = { ok: true; result: T } | { ok: false; error: RpcError };

/** JSON-RPC 2.0 over a network's upstream pool (failover and backoff live in the pool). */
export type RpcClient = {
  /** One call; throws RpcError when no upstream answers or the node answers with an error. `maxDepth` as the pool's SendOptions. */
  call<T>(method: string, params: unknown[], options?: { maxDepth?: number }): Promise<T>;
  /** Several calls in one batch request; results in call order. A node error in any call throws. */
  batch<T>(calls: { method: string; params: unknown[] }[]): Promise<T[]>;
  /**
   * Several calls in one batch request; each call's outcome in call order: its result, or the
   * RpcError the node answered it with. Throws, as batch does, when no upstream answers or a call
   * has no answer. `maxDepth` as call's, for the whole answer.
   */
  settled<T>(calls: { method: string; params: unknown[] }[], options?: { maxDepth?: number }): Promise<Settled<T>[]>;
  /** The same client, adding the size of every answer it reads to `meter.bytes` (what a block took to read). */
  metered(meter: { bytes: number }): RpcClient;
};

export function createRpcClient(pool: UpstreamPool, meter?: { bytes: number }): RpcClient {
  const post = async (body: unknown, maxDepth?: number): Promise<unknown> => {
    const reply = await pool.send(JSON.stringify(body), maxDepth === undefined ? {} : { maxDepth });
    // An answer over max_response_bytes names the limit itself; "no upstream answered" would mislead.
    if (!reply.ok) throw new RpcError(reply.code === "UPSTREAM_ANSWER_TOO_LARGE" ? reply.error : `no upstream answered: ${reply.error}`, null);
    if (meter) meter.bytes += reply.bytes;
    return reply.json;
  };
  const settledOf = <T>(method: string, r: RpcReply | undefined): Settled<T> => {
    if (!r || typeof r !== "object") throw new RpcError(`${method}: the node sent no answer for the call`, null);
    if (r.error) return { ok: false, error: new RpcError(`${method}: ${r.error.message ?? "error"} (${r.error.code ?? "no code"})`, r.error.code ?? null) };
    return { ok: true, result: r.result as T };
  };
  const resultOf = <T>(outcome: Settled<T>): T => {
    if (!outcome.ok) throw outcome.error;
    return outcome.result;
  };
  const settled = async <T>(calls: { method: string; params: unknown[] }[], options: { maxDepth?: number } = {}): Promise<Settled<T>[]> => {
    if (calls.length === 0) return [];
    const replies = (await post(
      calls.map((c, id) => ({ jsonrpc: "2.0", id, method: c.method, params: c.params })),
      options.maxDepth,
    )) as RpcReply[];
    if (!Array.isArray(replies)) throw new RpcError(`${calls[0].method}: the node did not answer the batch with an array`, null);
    // A batch's answers may come in any order: match them by id.
    const byId = new Map(replies.map((r) => [r?.id, r]));
    return calls.map((c, id) => settledOf<T>(c.method, byId.get(id)));
  };
  return {
    async call<T>(method: string, params: unknown[], options: { maxDepth?: number } = {}) {
      return resultOf(settledOf<T>(method, (await post({ jsonrpc: "2.0", id: 1, method, params }, options.maxDepth)) as RpcReply));
    },
    async batch<T>(calls: { method: string; params: unknown[] }[]) {
      return (await settled<T>(calls)).map(resultOf);
    },
    settled,
    metered: (m) => createRpcClient(pool, m),
  };
}
