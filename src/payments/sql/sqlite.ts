import { compiled, textPerCount } from "../../db/dialect/compiled.ts";
import { marks } from "../../db/dialect/sqlite/placeholders.ts";
import { CHECKOUT_ORDER, type PaymentStatements } from "./statements.ts";

// The statements of payment orders in SQLite's SQL (what each does: statements.ts).

const BY_KEY = `${CHECKOUT_ORDER} where p.checkout_key = ?`;
const BY_IDS = textPerCount((n) => `${CHECKOUT_ORDER} where p.id in (${marks(n)})`);
// `+network` keeps SQLite's planner off the (network, address) index, which it took with
// `network = ?` and then walked every order the network ever had (37 ms a mempool poll at 100,000
// paid or expired ones): the (status, expires_at) index finds the few that wait.
const WAITING = "select id from payments where +network = ? and status in ('pending', 'seen') and asset is null limit 1";

export const sqlitePaymentStatements: PaymentStatements = {
  selectCheckoutOrderByKey: (key) => compiled(BY_KEY, [key]),
  selectCheckoutOrdersById: (ids) => compiled(BY_IDS(ids.length), [...ids]),
  selectWaitingNativeOrder: (network) => compiled(WAITING, [network]),
};
