import type { Transaction } from "kysely";
import type { MempoolTx } from "../chain/block.ts";
import type { Db } from "../db/executor.ts";
import { serialize } from "../db/primitives.ts";
import type { DB, Payment } from "../db/schema.ts";
import { nextStates, type PaymentStatus } from "./lifecycle.ts";
import { paymentStatements } from "./sql/dialects.ts";
import { applyTransitions } from "./transitions.ts";

// Payment orders on UTXO chains announce `seen` from the node's mempool (docs/payments.md, docs/chains.md),
// the way a BTCPay user expects: the customer's wallet broadcast the payment, it is not yet in a
// block. Only the state moves: `amount_received` counts mined payments alone, so a payment is never
// counted twice, and confirmations start with its block as for any order.

/** The states a mempool payment can announce or take back: later ones wait for blocks. */
const EARLY: PaymentStatus[] = ["pending", "seen"];

/** Whether any order of the network waits for its first payment in the native asset (the poller skips the mempool otherwise). */
export async function hasWaitingOrders(db: Db, network: string): Promise<boolean> {
  // The states of EARLY, spelt in the statement's text (sql/).
  const { rows } = await db.executeQuery(paymentStatements(db).selectWaitingNativeOrder(network));
  return rows.length > 0;
}

/**
 * One look at a network's mempool, in one write transaction (under the ingest lock, so orders do
 * not move under a batch or the expiry): each `arrived` transaction paying a waiting order's address
 * is remembered, and a `pending` order becomes `seen` (its webhook queued, `tx_hash` the mempool
 * transaction). Each remembered transaction no longer in `present` is forgotten: mined ones count
 * through their block from now on; one that left unmined (replaced, evicted, conflicting) no longer
 * counts, and a `seen` order left with nothing, mined or in the mempool, goes back to `pending`,
 * silently, and expires on time. Returns how many orders it moved. `fence`, when given, runs first in
 * the transaction and throws to refuse it (a follower that lost its lead).
 */
export async function observeMempool(
  db: Db,
  input: { network: string; arrived: readonly MempoolTx[]; present: ReadonlySet<string>; nowMs: number },
  opts: { fence?: (trx: Transaction<DB>) => Promise<void> } = {},
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    // The follower's lead: a daemon that lost it since this look began writes nothing (it throws).
    await opts.fence?.(trx);
    await serialize(trx, "ingest");
    const moved = await rememberArrived(trx, input.network, input.arrived, input.nowMs);
    return moved + (await forgetGone(trx, input.network, input.present, input.nowMs));
  });
}

async function rememberArrived(trx: Transaction<DB>, network: string, arrived: readonly MempoolTx[], nowMs: number): Promise<number> {
  const paid = new Map<string, { txid: string; value: bigint }[]>();
  for (const tx of arrived) {
    const perAddress = new Map<string, bigint>();
    for (const o of tx.outputs) if (o.address !== null && o.value > 0n) perAddress.set(o.address, (perAddress.get(o.address) ?? 0n) + o.value);
    for (const [address, value] of perAddress) {
      const list = paid.get(address);
      if (list) list.push({ txid: tx.txid, value });
      else paid.set(address, [{ txid: tx.txid, value }]);
    }
  }
  if (paid.size === 0) return 0;
  let moved = 0;
  for (const order of await waitingOrders(trx, network, [...paid.keys()])) {
    for (const { txid, value } of paid.get(order.address) ?? []) {
      // Mined already (the block came first): its transfer counts, the mempool adds nothing.
      if (await isMined(trx, order.id, txid)) continue;
      const inserted = await trx
        .insertInto("mempool_transfers")
        .values({ payment_id: order.id, tx_hash: txid, network, amount_raw: value.toString(), created_at: nowMs })
        .onConflict((oc) => oc.columns(["payment_id", "tx_hash"]).doNothing())
        .returning("tx_hash")
        .executeTakeFirst();
      if (!inserted || order.status !== "pending") continue;
      const states = nextStates("pending", { kind: "movement_seen" });
      Object.assign(order, await applyTransitions(trx, { order, states, txHash: txid, nowMs }));
      moved += 1;
    }
  }
  return moved;
}

async function forgetGone(trx: Transaction<DB>, network: string, present: ReadonlySet<string>, nowMs: number): Promise<number> {
  const rows = await trx.selectFrom("mempool_transfers").select(["payment_id", "tx_hash"]).where("network", "=", network).execute();
  const touched = new Set<string>();
  for (const r of rows) {
    if (present.has(r.tx_hash)) continue;
    await trx.deleteFrom("mempool_transfers").where("payment_id", "=", r.payment_id).where("tx_hash", "=", r.tx_hash).execute();
    if (!(await isMined(trx, r.payment_id, r.tx_hash))) touched.add(r.payment_id);
  }
  let moved = 0;
  for (const paymentId of touched) {
    const order = await trx.selectFrom("payments").selectAll().where("id", "=", paymentId).executeTakeFirstOrThrow();
    if (order.status !== "seen" || BigInt(order.received_raw) > 0n) continue;
    const left = await trx.selectFrom("mempool_transfers").select("tx_hash").where("payment_id", "=", paymentId).orderBy("created_at").execute();
    if (left.length > 0) {
      // Another payment in the mempool still stands for the order.
      await applyTransitions(trx, { order, states: [], txHash: left[left.length - 1].tx_hash, nowMs });
      continue;
    }
    const states = nextStates("seen", { kind: "payments_orphaned", receivedRaw: 0n });
    await applyTransitions(trx, { order: { ...order, tx_hash: null }, states, txHash: null, nowMs });
    moved += 1;
  }
  return moved;
}

/** The live orders at these addresses that wait for a first payment in the native asset. */
async function waitingOrders(trx: Transaction<DB>, network: string, addresses: string[]): Promise<Payment[]> {
  const out: Payment[] = [];
  for (let i = 0; i < addresses.length; i += 500) {
    out.push(
      ...(await trx
        .selectFrom("payments")
        .selectAll()
        .where("network", "=", network)
        .where("address", "in", addresses.slice(i, i + 500))
        .where("status", "in", EARLY)
        .where("asset", "is", null)
        .execute()),
    );
  }
  return out;
}

async function isMined(trx: Transaction<DB>, paymentId: string, txHash: string): Promise<boolean> {
  const row = await trx.selectFrom("payment_transfers").select("id").where("payment_id", "=", paymentId).where("tx_hash", "=", txHash).limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * The payment orders' side of a btc follower's mempool look (the port follow/btc/mempool.ts calls,
 * handed to the followers by the daemon): whether a network has an order waiting, and one look's
 * findings written as observeMempool writes them.
 */
export function mempoolOrders(db: Db) {
  return {
    waiting: (network: string) => hasWaitingOrders(db, network),
    async observe(look: { network: string; arrived: readonly MempoolTx[]; present: ReadonlySet<string>; nowMs: number }, fence?: (trx: Transaction<DB>) => Promise<void>) {
      await observeMempool(db, look, { fence });
    },
  };
}
