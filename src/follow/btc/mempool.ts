import type { Transaction } from "kysely";
import { matchAddress } from "../../chain/address/normalize.ts";
import type { MempoolTx } from "../../chain/block.ts";
import { LeadLost } from "../../db/leadership.ts";
import type { DB } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import type { Logger } from "../../lib/log.ts";
import type { BtcClient } from "./client.ts";
import { checkMempoolTx, checkTxids, type MoneyLimit, transactionAmounts } from "./shape.ts";

type Fence = (trx: Transaction<DB>) => Promise<void>;

/**
 * What a mempool look asks of the payment orders and tells them: the port this follower calls,
 * implemented by payments/ (mempoolOrders of payments/mempool.ts) and handed in by the daemon, so
 * the follower reads the node and the orders keep their own rules and tables.
 */
export type MempoolOrders = {
  /** Whether some order of `network` waits for its first payment: a look reads nothing otherwise. */
  waiting(network: string): Promise<boolean>;
  /**
   * One look's findings: the transactions read since the last look and the ids the node still
   * holds, written in one transaction that runs `fence` first (a follower that lost its lead writes nothing).
   */
  observe(look: { network: string; arrived: readonly MempoolTx[]; present: ReadonlySet<string>; nowMs: number }, fence?: Fence): Promise<void>;
};

/** Bitcoin Core's answer to getrawtransaction for a transaction it no longer has (mined, evicted, replaced). */
const NO_SUCH_TRANSACTION = -5;

/** Transactions asked in one batch of getrawtransaction calls at most: a few hundred KB of answer. */
const TXS_PER_REQUEST = 50;

export type MempoolWatchDeps = {
  network: string;
  client: BtcClient;
  /** The network's bound on outputs (shape.ts): a transaction over it is malformed. */
  limit: MoneyLimit;
  orders: MempoolOrders;
  clock: Clock;
  log: Logger;
  /** The pool's redaction of its secrets (upstream/pool.ts), for the node's words in a logged failure. */
  redact: (text: string) => string;
  /** Transactions read per look at most; the rest wait for the next poll. */
  maxPerLook?: number;
  /** Transactions asked in one batch at most; TXS_PER_REQUEST unless given. */
  txsPerRequest?: number;
};

/**
 * The btc family's look at the node's mempool for payment orders (docs/chains.md), made by
 * the follower after each poll that found the head stored, and only while some order of the
 * network waits for its first payment. `getrawmempool` lists the transactions; those not read
 * before are read with `getrawtransaction <txid> true`, `txsPerRequest` to a batch (at most
 * `maxPerLook` a look), and handed to the payment orders (`orders`) with the ids the node still
 * holds. A look whose reads fail marks none of them read: the next look reads them again. A
 * transaction counts as gone only when two looks in a row miss it: one mined since the last look
 * is ingested by then (the follower is at the head), so it is never taken for an unmined one.
 * Failures are logged once per change and never stop the follower.
 */
export function createMempoolWatch(deps: MempoolWatchDeps): { look(fence?: Fence): Promise<void> } {
  const maxPerLook = deps.maxPerLook ?? 200;
  const txsPerRequest = deps.txsPerRequest ?? TXS_PER_REQUEST;
  /** Transactions read already, from the last look's mempool. */
  let read = new Set<string>();
  let previous = new Set<string>();
  let lastError: string | null = null;

  const look = async (fence?: Fence) => {
    if (!(await deps.orders.waiting(deps.network))) {
      read = new Set();
      previous = new Set();
      return;
    }
    const now = new Set(checkTxids(await deps.client.call("getrawmempool", [false])));
    const fresh: string[] = [];
    for (const txid of now) {
      if (fresh.length >= maxPerLook) break;
      if (!read.has(txid)) fresh.push(txid);
    }
    const arrived: MempoolTx[] = [];
    for (let i = 0; i < fresh.length; i += txsPerRequest) arrived.push(...(await readTxs(fresh.slice(i, i + txsPerRequest))));
    for (const txid of fresh) read.add(txid);
    read = new Set([...read].filter((t) => now.has(t)));
    const present = new Set([...now, ...previous]);
    previous = now;
    await deps.orders.observe({ network: deps.network, arrived, present, nowMs: deps.clock.now() }, fence);
  };

  /** Off for good once a batch failed where its transactions alone were then read (a provider that caps or refuses batches, an answer over max_response_bytes). */
  let batches = true;

  /** The transactions of `txids` the node still holds: one request, or one each once batches are off. */
  const readTxs = async (txids: string[]): Promise<MempoolTx[]> => {
    const batched = batches && txids.length > 1;
    if (batched) {
      const answers = await deps.client.callEach("getrawtransaction", txids.map((txid) => [txid, true]), { sites: transactionAmounts }).catch(() => null);
      if (answers !== null) return txsOf(txids, answers);
    }
    // One at a time, as a node queues few calls (Bitcoin Core: 16).
    const txs: MempoolTx[] = [];
    for (const txid of txids) txs.push(...txsOf([txid], await deps.client.callEach("getrawtransaction", [[txid, true]], { sites: transactionAmounts })));
    if (batched) batches = false;
    return txs;
  };

  /** What the node answered for each of `txids`: the transactions it still holds. */
  const txsOf = (txids: string[], answers: Awaited<ReturnType<BtcClient["callEach"]>>): MempoolTx[] => {
    const txs: MempoolTx[] = [];
    txids.forEach((txid, i) => {
      const answer = answers[i];
      if ("error" in answer) {
        // Left the mempool between the two calls: nothing to read.
        if (answer.error.code === NO_SUCH_TRANSACTION) return;
        throw answer.error;
      }
      const tx = checkMempoolTx(txid, answer.result, deps.limit);
      txs.push({ txid: tx.txid, outputs: tx.outputs.map((o) => ({ address: matchAddress("btc", o.address), value: o.value })) });
    });
    return txs;
  };

  return {
    async look(fence) {
      try {
        await look(fence);
        if (lastError !== null) deps.log.info("mempool readable again", { network: deps.network });
        lastError = null;
      } catch (e) {
        // The lead moved to another daemon: its follower looks from now on; this one's next fence says so.
        if (e instanceof LeadLost) return;
        const message = deps.redact((e as Error).message ?? String(e));
        if (message !== lastError) deps.log.warn("cannot read the mempool", { network: deps.network, error: message });
        lastError = message;
      }
    },
  };
}
