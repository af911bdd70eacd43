import { compiled, textPerCount } from "../../db/dialect/compiled.ts";
import { marks } from "../../db/dialect/sqlite/placeholders.ts";
import { CHECKOUT_ORDER, ORDER_COLUMNS, ORDER_WIDTH, orderParams, type PaymentStatements, TERMINAL_LIST } from "./statements.ts";

// The statements of payment orders in SQLite's SQL (what each does: statements.ts).

const BY_KEY = `${CHECKOUT_ORDER} where p.checkout_key = ?`;
const BY_IDS = textPerCount((n) => `${CHECKOUT_ORDER} where p.id in (${marks(n)})`);
// `+network` keeps SQLite's planner off the (network, address) index, which it took with
// `network = ?` and then walked every order the network ever had (37 ms a mempool poll at 100,000
// paid or expired ones): the (status, expires_at) index finds the few that wait.
const WAITING = "select id from payments where +network = ? and status in ('pending', 'seen') and asset is null limit 1";

// An order's creation: by the (account_id, order_id) unique index, then the (network, address) index.
const ORDER_ID_TAKEN = "select id from payments where account_id = ? and order_id = ?";
const DERIVED_AT = "select id from payments where network = ? and address = ? and derivation_index is not null limit 1";
// `is` matches a null asset (the native coin) as `=` matches a token.
const LIVE_AT = `select id from payments where network = ? and address = ? and asset is ? and status not in (${TERMINAL_LIST}) limit 1`;
const INSERT_ORDER = `insert into payments (${ORDER_COLUMNS}) values (${marks(ORDER_WIDTH)})`;
// By the primary key; another account's order is not found.
const ACCOUNT_ORDER = `select ${ORDER_COLUMNS} from payments where id = ? and account_id = ?`;
// By the (payment_id, …) unique index of payment_transfers.
const LATE = textPerCount((n) => `select payment_id, tx_hash, amount_raw, block_height from payment_transfers where payment_id in (${marks(n)}) and late = 1 order by block_height, id`);

export const sqlitePaymentStatements: PaymentStatements = {
  selectCheckoutOrderByKey: (key) => compiled(BY_KEY, [key]),
  selectCheckoutOrdersById: (ids) => compiled(BY_IDS(ids.length), [...ids]),
  selectWaitingNativeOrder: (network) => compiled(WAITING, [network]),
  selectOrderIdTaken: (accountId, orderId) => compiled(ORDER_ID_TAKEN, [accountId, orderId]),
  selectDerivedOrderAt: (network, address) => compiled(DERIVED_AT, [network, address]),
  selectLiveOrderAt: (network, address, asset) => compiled(LIVE_AT, [network, address, asset]),
  insertOrder: (order) => compiled(INSERT_ORDER, orderParams(order)),
  selectAccountOrder: (accountId, paymentId) => compiled(ACCOUNT_ORDER, [paymentId, accountId]),
  selectLatePayments: (ids) => compiled(LATE(ids.length), [...ids]),
};
