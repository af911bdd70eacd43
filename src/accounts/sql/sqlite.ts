import { compiled } from "../../db/dialect/compiled.ts";
import type { AccountStatements } from "./statements.ts";

// The statement of the account views in SQLite's SQL (what it does: statements.ts).

// slots_used counts the same rows as slotsUsed (watch/watches.ts).
const SNAPSHOT = `select a.id, a.name, a.plan, a.credits, p.address_slots, p.rpc_rps, p.monthly_credits,
  (select count(*) from watches w where w.account_id = a.id) as slots_used,
  coalesce((select u.credits from usage_daily u where u.account_id = a.id and u.day = ?), 0) as spent_today
from accounts a join plans p on p.name = a.plan
where a.id = ?`;

export const sqliteAccountStatements: AccountStatements = {
  accountSnapshot: (accountId, day) => compiled(SNAPSHOT, [day, accountId]),
};
