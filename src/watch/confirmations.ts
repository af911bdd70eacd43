// min_confirmations of the address-watch webhook (docs/chains.md): with N > 0, a wallet or block event
// goes out only once its block has N confirmations on the canonical chain (tip − height + 1 >= N).
// Until then its delivery row is `held` with the height the tip must reach; each ingest releases
// the rows the new tips reached (releaseHeldDeliveries, delivery/outbox.ts). A held row whose
// block is orphaned is deleted (retractEventDeliveries, delivery/outbox.ts).

/** The height the tip must reach before an event at `blockHeight` may go out, or null when it may go now. */
export function holdUntilHeight(minConfirmations: number, blockHeight: number, tip: number): number | null {
  if (minConfirmations <= 0) return null;
  const due = blockHeight + minConfirmations - 1;
  return tip >= due ? null : due;
}
