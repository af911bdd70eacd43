import { compiled, textPerCount } from "../../db/dialect/compiled.ts";
import { marks } from "../../db/dialect/sqlite/placeholders.ts";
import { CHECKOUT_ORDER, type PaymentStatements } from "./statements.ts";

// The statements of payment orders in SQLite's SQL (what each does: statements.ts).

const BY_KEY = `${CHECKOUT_ORDER} where p.checkout_key = ?`;
const BY_IDS = textPerCount((n) => `${CHECKOUT_ORDER} where p.id in (${marks(n)})`);

export const sqlitePaymentStatements: PaymentStatements = {
  selectCheckoutOrderByKey: (key) => compiled(BY_KEY, [key]),
  selectCheckoutOrdersById: (ids) => compiled(BY_IDS(ids.length), [...ids]),
};
