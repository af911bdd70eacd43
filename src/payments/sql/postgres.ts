import { numbered } from "../../db/dialect/postgres/placeholders.ts";
import { preparedQuery } from "../../db/dialect/postgres/prepared.ts";
import { CHECKOUT_ORDER, ORDER_COLUMNS, ORDER_WIDTH, orderParams, type PaymentStatements, TERMINAL_LIST } from "./statements.ts";

// The statements of payment orders in PostgreSQL's SQL (what each does: statements.ts), each a
// named prepared statement on every connection.

const BY_KEY = `${CHECKOUT_ORDER} where p.checkout_key = $1`;
// One text for any number of ids (an array, not a placeholder each), so it is prepared once.
const BY_IDS = `${CHECKOUT_ORDER} where p.id = any($1::text[])`;
const WAITING = "select id from payments where network = $1 and status in ('pending', 'seen') and asset is null limit 1";

const ORDER_ID_TAKEN = "select id from payments where account_id = $1 and order_id = $2";
const DERIVED_AT = "select id from payments where network = $1 and address = $2 and derivation_index is not null limit 1";
// `is not distinct from` matches a null asset (the native coin) as `=` matches a token.
const LIVE_AT = `select id from payments where network = $1 and address = $2 and asset is not distinct from $3 and status not in (${TERMINAL_LIST}) limit 1`;
const INSERT_ORDER = `insert into payments (${ORDER_COLUMNS}) values (${numbered(1, ORDER_WIDTH)})`;
const ACCOUNT_ORDER = `select ${ORDER_COLUMNS} from payments where id = $1 and account_id = $2`;
const LATE = "select payment_id, tx_hash, amount_raw, block_height from payment_transfers where payment_id = any($1::text[]) and late = 1 order by block_height, id";

export const postgresPaymentStatements: PaymentStatements = {
  selectCheckoutOrderByKey: (key) => preparedQuery(BY_KEY, [key]),
  selectCheckoutOrdersById: (ids) => preparedQuery(BY_IDS, [[...ids]]),
  selectWaitingNativeOrder: (network) => preparedQuery(WAITING, [network]),
  selectOrderIdTaken: (accountId, orderId) => preparedQuery(ORDER_ID_TAKEN, [accountId, orderId]),
  selectDerivedOrderAt: (network, address) => preparedQuery(DERIVED_AT, [network, address]),
  selectLiveOrderAt: (network, address, asset) => preparedQuery(LIVE_AT, [network, address, asset]),
  insertOrder: (order) => preparedQuery(INSERT_ORDER, orderParams(order)),
  selectAccountOrder: (accountId, paymentId) => preparedQuery(ACCOUNT_ORDER, [paymentId, accountId]),
  selectLatePayments: (ids) => preparedQuery(LATE, [[...ids]]),
};
