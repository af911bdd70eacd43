// A checkout page pairs an order with its network's tip: the order's status and the "k of n"
// confirmations the tip gives must come from the same commit. The ingest writes both in one
// transaction, but the live-update hub reads them in two statements (the order is the payments
// folder's, the tip the ingest's), and a block stored between the two paired the old order with the
// new tip: "Payment seen, 2 of 2 confirmations" until the next look. So the orders are read again
// after the tips, and the pair is used once the orders read the same on both sides of the tips: an
// order that did not change while the tips were read is the order as of that read. Only a commit
// that lands between the reads costs another try; after a few, the last pair stands (the next look
// corrects it).

const TRIES = 3;

/**
 * `read()` (orders) and the tips of the networks `networksOf` names, as of one moment: `key` says
 * whether two reads of the orders are the same. Normally two reads of the orders and one of the tips.
 */
export async function withTipsOfOneMoment<T>(
  read: () => Promise<T>,
  networksOf: (orders: T) => Iterable<string>,
  tips: (networks: Iterable<string>) => Promise<Map<string, number>>,
  key: (orders: T) => string,
): Promise<{ orders: T; tips: Map<string, number> }> {
  let orders = await read();
  for (let tried = 1; ; tried++) {
    const atTips = await tips(networksOf(orders));
    const again = await read();
    if (tried >= TRIES || key(again) === key(orders)) return { orders: again, tips: atTips };
    orders = again;
  }
}
