import type { Transaction } from "kysely";
import { type BlockRef, orphanedByNetwork } from "../chain/chain-change.ts";
import type { DB, Payment } from "../db/schema.ts";
import { retractLatePayment } from "./late-payments.ts";
import { isTerminal, nextStates, type PaymentStatus } from "./lifecycle.ts";
import { applyTransitions } from "./transitions.ts";

// Waiting for money: the states whose tx_hash names a payment the order is still counting.
const WAITING: ReadonlySet<PaymentStatus> = new Set<PaymentStatus>(["pending", "seen", "underpaid"]);

/**
 * Payment orders count canonical blocks only (docs/chains.md, docs/payments.md). A transfer recorded from a
 * block a reorg orphaned is deleted, so it stops counting; the same transaction mined in the new
 * chain is recorded afresh. Each order that lost a transfer then follows the canonical chain:
 * `received_raw` and `confirmed_raw` are what its remaining transfers add up to, a waiting order's
 * `tx_hash` names a remaining payment (null when none), and a `seen` or `underpaid` order with
 * nothing left goes back to `pending` — silently, and so it expires on time. An order in
 * `aml_check` finishes its screening; orders in a terminal state are left exactly as they are,
 * transfers included — except the late payments of a wallet's order, which are forgotten and, when
 * they were announced, retracted (late-payments.ts).
 */
export async function forgetOrphanedTransfers(trx: Transaction<DB>, orphaned: readonly BlockRef[], nowMs: number): Promise<void> {
  const touched = new Set<string>();
  for (const { network, hashes, heightSlices } of orphanedByNetwork(orphaned)) {
    for (const heights of heightSlices) {
      const rows = await trx
        .selectFrom("payment_transfers as t")
        .innerJoin("payments as p", "p.id", "t.payment_id")
        .select(["t.id", "t.payment_id", "t.block_hash", "t.late", "t.confirmed", "t.tx_hash", "t.amount_raw", "t.block_height", "p.status", "p.derivation_index"])
        .where("p.network", "=", network)
        // Both values of `confirmed`, so the (confirmed, block_height) index serves the height list.
        .where("t.confirmed", "in", [0, 1])
        .where("t.block_height", "in", heights)
        .execute();
      for (const t of rows) {
        if (!hashes.has(t.block_hash)) continue;
        if (isTerminal(t.status as PaymentStatus)) {
          if (t.late === 1 && t.derivation_index !== null) await forgetLatePayment(trx, t, nowMs);
          continue;
        }
        await trx.deleteFrom("payment_transfers").where("id", "=", t.id).execute();
        if (t.late === 0) touched.add(t.payment_id);
      }
    }
  }
  for (const paymentId of touched) await followCanonical(trx, paymentId, nowMs);
}

/** A wallet order's late payment whose block was orphaned: no longer listed, and retracted once announced (confirmed). */
async function forgetLatePayment(
  trx: Transaction<DB>,
  t: { id: number; payment_id: string; tx_hash: string; amount_raw: string; block_height: number; confirmed: number },
  nowMs: number,
): Promise<void> {
  await trx.deleteFrom("payment_transfers").where("id", "=", t.id).execute();
  if (t.confirmed !== 1) return;
  const order = await trx.selectFrom("payments").selectAll().where("id", "=", t.payment_id).executeTakeFirstOrThrow();
  await retractLatePayment(trx, order, t, nowMs);
}

/** Recounts an order from the transfers it has left and applies what the new total means. */
async function followCanonical(trx: Transaction<DB>, paymentId: string, nowMs: number): Promise<void> {
  const order = await trx.selectFrom("payments").selectAll().where("id", "=", paymentId).executeTakeFirstOrThrow();
  const left = await trx
    .selectFrom("payment_transfers")
    .select(["tx_hash", "amount_raw", "confirmed"])
    .where("payment_id", "=", paymentId)
    .where("late", "=", 0)
    .orderBy("id")
    .execute();
  let received = 0n;
  let confirmed = 0n;
  for (const t of left) {
    received += BigInt(t.amount_raw);
    if (t.confirmed === 1) confirmed += BigInt(t.amount_raw);
  }
  const status = order.status as PaymentStatus;
  let txHash = order.tx_hash;
  // The newest payment still counted stands in for one the reorg took away; aml_check keeps the
  // transaction its screening is about.
  if (WAITING.has(status) && !left.some((t) => t.tx_hash === txHash)) txHash = left.at(-1)?.tx_hash ?? null;
  const recounted: Payment = { ...order, received_raw: received.toString(), confirmed_raw: confirmed.toString(), tx_hash: txHash };
  const states = nextStates(status, { kind: "payments_orphaned", receivedRaw: received });
  await applyTransitions(trx, { order: recounted, states, txHash: null, nowMs });
}
