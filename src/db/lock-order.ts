// Rows that several transactions write (accounts' balances, each account's usage of the day, its
// open notice of a kind, an endpoint's health) are taken in one order, by their key's text, by the
// function that writes them: two PostgreSQL transactions then wait for each other's rows in one
// order, never in a circle. SQLite, one writer at a time, needs no order and loses nothing by it.

/** The order two keys (account or endpoint ids, days) are locked in: by their text. */
export function lockOrder(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
