// A hand-driven EVM JSON-RPC node on 127.0.0.1 for hostile-upstream tests: it answers
// eth_chainId, eth_blockNumber, eth_getBlockByNumber and eth_getBlockReceipts from a block map the
// test edits, and can be told to fail, to change its chain id, or to rewrite what it sends.

type Rec = Record<string, unknown>;

/** A transaction as the node sends it (full form). */
export type FakeTx = { hash: string; from: unknown; to: unknown; value: string };
/** A block as the node sends it, transactions in full. */
export type FakeBlock = { number: string; hash: unknown; parentHash: unknown; timestamp: string; transactions: FakeTx[] };

export type FakeNode = {
  url: string;
  /** What eth_chainId answers. */
  chainId: number;
  /** Height → block; the head is the highest height unless `head` is set. */
  blocks: Map<number, FakeBlock>;
  head: number | null;
  /** While true, every request gets HTTP 503. */
  down: boolean;
  /** Applied to each block before it is sent (the stored one is left alone); identity by default. */
  rewrite: (block: FakeBlock) => FakeBlock;
  /** Called on every eth_blockNumber, before it answers (e.g. to change the tip on each poll). */
  onHead: () => void;
  /** Every method asked, in order. */
  calls: string[];
  stop(): void;
};

/** A 32-byte hash for block `height` of chain `tag` (a hex digit or two). */
export function hashOf(tag: string, height: number): string {
  return `0x${tag}${height.toString(16).padStart(64 - tag.length, "0")}`;
}

/** Blocks `from`..`to` of chain `tag`, each the parent of the next; the first's parent is `parent` (or chain `tag` at from − 1; zeros below 0). */
export function chainOf(tag: string, from: number, to: number, parent = from > 0 ? hashOf(tag, from - 1) : `0x${"0".repeat(64)}`, txs: Record<number, FakeTx[]> = {}): FakeBlock[] {
  const out: FakeBlock[] = [];
  let parentHash = parent;
  for (let h = from; h <= to; h++) {
    const hash = hashOf(tag, h);
    out.push({ number: `0x${h.toString(16)}`, hash, parentHash, timestamp: `0x${(1_763_750_000 + h).toString(16)}`, transactions: txs[h] ?? [] });
    parentHash = hash;
  }
  return out;
}

export function startFakeNode(opts: { chainId: number; blocks?: FakeBlock[] }): FakeNode {
  const node: FakeNode = {
    url: "",
    chainId: opts.chainId,
    blocks: new Map(),
    head: null,
    down: false,
    rewrite: (b) => b,
    onHead: () => {},
    calls: [],
    stop: () => server.stop(true),
  };
  for (const b of opts.blocks ?? []) node.blocks.set(Number(b.number), b);
  const head = () => node.head ?? Math.max(-1, ...node.blocks.keys());
  const sent = (height: number) => {
    const b = node.blocks.get(height);
    return b ? node.rewrite(structuredClone(b)) : null;
  };

  const answer = (method: string, params: unknown[]): unknown => {
    switch (method) {
      case "eth_chainId":
        return `0x${node.chainId.toString(16)}`;
      case "eth_blockNumber":
        node.onHead();
        return `0x${head().toString(16)}`;
      case "eth_getBlockByNumber": {
        const height = Number(BigInt(params[0] as string));
        const b = height > head() ? null : sent(height);
        if (!b || params[1] === true) return b;
        return { ...b, transactions: b.transactions.map((t) => t.hash) };
      }
      case "eth_getBlockReceipts": {
        const b = [...node.blocks.keys()].map(sent).find((x) => x?.hash === params[0]);
        if (!b) return null;
        return b.transactions.map((t) => ({ transactionHash: t.hash, blockHash: b.hash, status: "0x1", logs: [] }));
      }
      default:
        throw new Error(`fake node: no ${method}`);
    }
  };
  const reply = (call: Rec) => {
    node.calls.push(String(call.method));
    return { jsonrpc: "2.0", id: call.id, result: answer(String(call.method), (call.params as unknown[]) ?? []) };
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (node.down) return new Response("unavailable", { status: 503 });
      const body = (await req.json()) as Rec | Rec[];
      return Response.json(Array.isArray(body) ? body.map(reply) : reply(body));
    },
  });
  node.url = `http://127.0.0.1:${server.port}`;
  return node;
}
