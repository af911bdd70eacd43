import type { Movement, TxOutput } from "./block.ts";

// How a transaction's values become movements (block.ts says what each index means), for every
// builder of blocks: the feed's (ingest/block-from-feed.ts) and each follower family's. Pure.

/** A transaction's native value as movement 0; none when it moves nothing (a plain contract call). */
export function nativeMovement(from: string | null, to: string | null, value: bigint): Movement[] {
  return value > 0n ? [{ index: 0, asset: null, from, to, value, decimals: null }] : [];
}

/**
 * A transfer of a transaction, addresses in matching form; `decimals` null when unknown. A token's
 * (`asset` its contract; `nft` when it is a non-fungible one), or native value moved inside the
 * execution (`asset` null, `internal`).
 */
export type TokenTransfer = Pick<Movement, "asset" | "from" | "to" | "value" | "decimals" | "nft" | "internal">;

/** Transfers as movements 1..n, in order; a zero-value transfer is one too (it gives `other` hits). */
export function transferMovements(transfers: readonly TokenTransfer[]): Movement[] {
  return transfers.map((t, i) => {
    const m: Movement = { index: i + 1, asset: t.asset, from: t.from, to: t.to, value: t.value, decimals: t.decimals };
    if (t.nft) m.nft = t.nft;
    if (t.internal) m.internal = true;
    return m;
  });
}

/**
 * What a UTXO transaction pays each address: one movement per address, the sum of its outputs to
 * it, indexed by its first output's vout + 1 (stable however often the transaction is read).
 */
export function outputPayments(outputs: readonly TxOutput[]): Movement[] {
  const payments: Movement[] = [];
  // Most transactions pay one or two addresses: the list is searched, and a map kept only past a few.
  let byAddress: Map<string, Movement> | null = null;
  for (const o of outputs) {
    if (o.address === null) continue;
    const m = byAddress ? byAddress.get(o.address) : paymentTo(payments, o.address);
    if (m) {
      m.value += o.value;
      continue;
    }
    const payment: Movement = { index: o.vout + 1, asset: null, from: null, to: o.address, value: o.value, decimals: null };
    payments.push(payment);
    if (byAddress) byAddress.set(o.address, payment);
    else if (payments.length > SEARCHED) byAddress = new Map(payments.map((p) => [p.to as string, p]));
  }
  return payments;
}

/** Payments searched in a list before a map is kept. */
const SEARCHED = 8;

function paymentTo(payments: Movement[], address: string): Movement | undefined {
  for (const p of payments) if (p.to === address) return p;
  return undefined;
}
