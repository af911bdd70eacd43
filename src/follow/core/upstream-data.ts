// What a follower does with a node's answer of the wrong shape, whatever the family: a node is
// trusted to say which chain it follows, not to be well formed. A hash that is no hash would look
// like a reorg, and an address field holding HTML would be stored and delivered to receivers.
//
// Thrown, not returned, as every failure of a reader is (the clients' RpcError, BtcRpcError and
// TronApiError, the chain checks' ChainIdMismatch): a check fails deep inside the walk of one
// answer, and the failure crosses the reader's async boundaries by design (the catch-up's reads
// launched ahead and awaited in height order, the pool's chain-id guard, the redacting wrapper) to
// the follower's poll loop, the one place that shows it (core/chain-follower.ts). The follower's
// own failures (the reorg brake, blocks that do not link, a refused batch) are values.

/** The node answered something of the wrong shape; the follower reports it as an upstream error and stores nothing. */
export class MalformedUpstreamData extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MalformedUpstreamData";
  }
}

/**
 * The offending value as a short, escaped preview: hostile text must not reach logs or terminals
 * raw or whole. `max` characters at most (48; a node's own error message may take more).
 */
export function preview(value: unknown, max = 48): string {
  if (value === undefined) return "missing";
  // JSON escapes C0 controls; C1 controls (a terminal's CSI) and line separators are escaped here.
  const json = (JSON.stringify(value) ?? String(value)).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return json.length > max ? `${json.slice(0, max - 3)}...` : json;
}

type Rec = Record<string, unknown>;

/**
 * The checks every family's shape checker starts from, over one node answer (`what`: "a malformed
 * block 5"): each failure throws MalformedUpstreamData naming the answer, the field and a preview
 * of the value.
 */
export function answerChecker(what: string) {
  const fail = (field: string, expected: string, value: unknown): never => {
    throw new MalformedUpstreamData(`the node sent ${what}: ${field} is not ${expected} (${preview(value)})`);
  };
  return {
    fail,
    object(field: string, value: unknown): Rec {
      if (typeof value !== "object" || value === null || Array.isArray(value)) fail(field, "an object", value);
      return value as Rec;
    },
    array(field: string, value: unknown): unknown[] {
      if (!Array.isArray(value)) fail(field, "an array", value);
      return value as unknown[];
    },
  };
}
