import type { Transaction } from "kysely";
import type { IngestedBlock, Movement } from "../chain/block.ts";
import type { ChainChange } from "../chain/chain-change.ts";
import type { NetworkConfig } from "../config/schema.ts";
import type { DB, Payment } from "../db/schema.ts";
import { announceLatePayments } from "./late-payments.ts";
import { isTerminal, nextStates, type PaymentStatus } from "./lifecycle.ts";
import { normalizeAsset } from "./orders.ts";
import { forgetOrphanedTransfers } from "./orphaned-transfers.ts";
import { applyTransitions } from "./transitions.ts";
import { markIndexPaid } from "./wallets/gap.ts";

// Keeps each IN (…) list well under SQLite's bound-parameter limit.
const CHUNK = 500;

/** The payments stage of ingest: what a batch's change to the canonical chain does to payment orders. */
export type PaymentObserver = (trx: Transaction<DB>, change: ChainChange, nowMs: number) => Promise<void>;

/**
 * The payments side of ingest, run inside the ingest transaction (ingest/pipeline.ts): records
 * incoming movements to order addresses (after forgetting those of blocks a reorg orphaned),
 * confirms transfers the new canonical tips made deep enough, and moves orders along the
 * lifecycle. Webhooks and AML jobs are written in the same transaction; the AML worker and the
 * delivery loop are woken after commit by the pipeline's onCommitted.
 */
export function createPaymentObserver(deps: { networks: Record<string, NetworkConfig> }): PaymentObserver {
  return async (trx, change, nowMs) => {
    await forgetOrphanedTransfers(trx, change.orphaned, nowMs);
    await recordMovements(trx, deps.networks, change.blocks, nowMs);
    for (const [network, tip] of change.tips) {
      const net = deps.networks[network];
      if (net) await confirmTransfers(trx, network, tip - net.confirmations + 1, nowMs);
    }
  };
}

const orderKey = (address: string, asset: string | null) => `${address}\u0000${asset ?? ""}`;

/**
 * Whether a movement can pay an order: a positive amount of a coin or fungible token to an
 * address. An NFT never does (an order is an amount of one asset; a token id is no amount of its
 * contract); native value moved inside a contract's execution does, like a smart-contract wallet's payment.
 */
const pays = (m: Movement): m is Movement & { to: string } => m.to !== null && m.value > 0n && m.nft === undefined;

/** Phase 1: every positive movement to an order address becomes a payment transfer of that order. */
async function recordMovements(trx: Transaction<DB>, networks: Record<string, NetworkConfig>, blocks: IngestedBlock[], nowMs: number) {
  const byNetwork = new Map<string, IngestedBlock[]>();
  for (const b of blocks) {
    const list = byNetwork.get(b.network);
    if (list) list.push(b);
    else byNetwork.set(b.network, [b]);
  }
  for (const [network, netBlocks] of byNetwork) {
    const net = networks[network];
    if (!net || !(await hasOrders(trx, network))) continue;
    const targets = await ordersByAddress(trx, network, netBlocks);
    if (targets.size === 0) continue;
    for (const block of netBlocks) {
      for (const tx of block.transactions) {
        for (const m of tx.movements) {
          if (!pays(m)) continue;
          const key = orderKey(m.to, normalizeAsset(net.family, m.asset));
          const order = targets.get(key);
          if (!order) continue;
          const late = isTerminal(order.status as PaymentStatus);
          const inserted = await trx
            .insertInto("payment_transfers")
            .values({
              payment_id: order.id,
              tx_hash: tx.hash,
              movement: m.index,
              block_hash: block.hash,
              block_height: block.height,
              sender: m.from ?? tx.from,
              amount_raw: m.value.toString(),
              confirmed: 0,
              late: late ? 1 : 0,
              created_at: nowMs,
            })
            .onConflict((oc) => oc.columns(["payment_id", "tx_hash", "movement"]).doNothing())
            .returning("id")
            .executeTakeFirst();
          // Already recorded (the same tx re-sent, or seen in another block): counted once.
          if (!inserted) continue;
          // A wallet's address that received anything ends its run of unused ones (the gap limit).
          if (order.wallet_id !== null && order.derivation_index !== null) await markIndexPaid(trx, order.wallet_id, Number(order.derivation_index), nowMs);
          if (late) continue;
          const states = nextStates(order.status as PaymentStatus, { kind: "movement_seen" });
          const updated = await applyTransitions(trx, {
            order: { ...order, received_raw: (BigInt(order.received_raw) + m.value).toString() },
            states,
            txHash: states.length > 0 ? tx.hash : null,
            nowMs,
          });
          targets.set(key, updated);
        }
      }
    }
  }
}

// Most networks carry no payment orders at all: one indexed probe spares collecting every address of a large batch.
async function hasOrders(trx: Transaction<DB>, network: string): Promise<boolean> {
  return (await trx.selectFrom("payments").select("id").where("network", "=", network).limit(1).executeTakeFirst()) !== undefined;
}

/**
 * The order each (address, asset) of these blocks pays: the live order when there is one (at most
 * one exists, see createOrder), else the newest finished one, which records it as late.
 */
async function ordersByAddress(trx: Transaction<DB>, network: string, blocks: IngestedBlock[]): Promise<Map<string, Payment>> {
  const addresses = new Set<string>();
  for (const b of blocks)
    for (const tx of b.transactions) for (const m of tx.movements) if (pays(m)) addresses.add(m.to);
  const all = [...addresses];
  const targets = new Map<string, Payment>();
  for (let i = 0; i < all.length; i += CHUNK) {
    const rows = await trx
      .selectFrom("payments")
      .selectAll()
      .where("network", "=", network)
      .where("address", "in", all.slice(i, i + CHUNK))
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .execute();
    for (const row of rows) {
      const key = orderKey(row.address, row.asset);
      const current = targets.get(key);
      if (!current || (isTerminal(current.status as PaymentStatus) && !isTerminal(row.status as PaymentStatus))) targets.set(key, row);
    }
  }
  return targets;
}

type DueTransfer = { id: number; payment_id: string; tx_hash: string; sender: string | null; amount_raw: string; late: number; block_height: number };

/** Phase 2: transfers at or below `maxHeight` on `network` are confirmed; their orders are re-evaluated. */
async function confirmTransfers(trx: Transaction<DB>, network: string, maxHeight: number, nowMs: number) {
  const due: DueTransfer[] = await trx
    .selectFrom("payment_transfers as t")
    .innerJoin("payments as p", "p.id", "t.payment_id")
    .select(["t.id", "t.payment_id", "t.tx_hash", "t.sender", "t.amount_raw", "t.late", "t.block_height"])
    .where("t.confirmed", "=", 0)
    .where("t.block_height", "<=", maxHeight)
    .where("p.network", "=", network)
    .orderBy("t.block_height")
    .orderBy("t.id")
    .execute();
  if (due.length === 0) return;
  for (let i = 0; i < due.length; i += CHUNK) {
    const ids = due.slice(i, i + CHUNK).map((t) => t.id);
    await trx.updateTable("payment_transfers").set({ confirmed: 1 }).where("id", "in", ids).execute();
  }
  // Late transfers never count toward an order; those to a wallet's address are announced now.
  await announceLatePayments(trx, due.filter((t) => t.late === 1), nowMs);
  const byOrder = new Map<string, DueTransfer[]>();
  for (const t of due) {
    if (t.late === 1) continue;
    const list = byOrder.get(t.payment_id);
    if (list) list.push(t);
    else byOrder.set(t.payment_id, [t]);
  }
  for (const [paymentId, transfers] of byOrder) {
    const order = await trx.selectFrom("payments").selectAll().where("id", "=", paymentId).executeTakeFirstOrThrow();
    await settleConfirmed(trx, order, transfers, nowMs);
  }
}

/** Adds newly confirmed transfers to an order's confirmed total and applies what that total means. */
async function settleConfirmed(trx: Transaction<DB>, order: Payment, transfers: DueTransfer[], nowMs: number) {
  const amountRaw = BigInt(order.amount_raw);
  let confirmedRaw = BigInt(order.confirmed_raw);
  // The transfer that moves the order: the one whose confirmation reaches the amount, else the last one.
  let mover: DueTransfer | undefined;
  for (const t of transfers) {
    const before = confirmedRaw;
    confirmedRaw += BigInt(t.amount_raw);
    if (!mover && before < amountRaw && confirmedRaw >= amountRaw) mover = t;
  }
  mover ??= transfers[transfers.length - 1];
  const states = nextStates(order.status as PaymentStatus, { kind: "confirmed_total", confirmedRaw, amountRaw });
  if (states.includes("aml_check")) {
    await trx
      .insertInto("aml_jobs")
      .values({
        payment_id: order.id,
        network: order.network,
        // Empty when the feed named no sender; the screener then gets a null address.
        address: mover.sender ?? "",
        tx_hash: mover.tx_hash,
        attempts: 0,
        next_attempt_at: nowMs,
        lease_until: null,
        last_error: null,
        created_at: nowMs,
      })
      .onConflict((oc) => oc.column("payment_id").doNothing())
      .execute();
  }
  await applyTransitions(trx, {
    order: { ...order, confirmed_raw: confirmedRaw.toString() },
    states,
    txHash: states.length > 0 ? mover.tx_hash : null,
    nowMs,
  });
}
