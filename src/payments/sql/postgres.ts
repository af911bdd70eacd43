import { preparedQuery } from "../../db/dialect/postgres/prepared.ts";
import { CHECKOUT_ORDER, type PaymentStatements } from "./statements.ts";

// The statements of payment orders in PostgreSQL's SQL (what each does: statements.ts), each a
// named prepared statement on every connection.

const BY_KEY = `${CHECKOUT_ORDER} where p.checkout_key = $1`;
// One text for any number of ids (an array, not a placeholder each), so it is prepared once.
const BY_IDS = `${CHECKOUT_ORDER} where p.id = any($1::text[])`;
const WAITING = "select id from payments where network = $1 and status in ('pending', 'seen') and asset is null limit 1";

export const postgresPaymentStatements: PaymentStatements = {
  selectCheckoutOrderByKey: (key) => preparedQuery(BY_KEY, [key]),
  selectCheckoutOrdersById: (ids) => preparedQuery(BY_IDS, [[...ids]]),
  selectWaitingNativeOrder: (network) => preparedQuery(WAITING, [network]),
};
