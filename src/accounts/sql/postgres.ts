import { preparedQuery } from "../../db/dialect/postgres/prepared.ts";
import type { AccountStatements } from "./statements.ts";

// The statement of the account views in PostgreSQL's SQL (what it does: statements.ts), a named
// prepared statement on every connection.

// slots_used counts the same rows as slotsUsed (watch/watches.ts).
const SNAPSHOT = `select a.id, a.name, a.plan, a.credits, p.address_slots, p.rpc_rps, p.monthly_credits,
  (select count(*) from watches w where w.account_id = a.id) as slots_used,
  coalesce((select u.credits from usage_daily u where u.account_id = a.id and u.day = $2), 0) as spent_today
from accounts a join plans p on p.name = a.plan
where a.id = $1`;

export const postgresAccountStatements: AccountStatements = {
  accountSnapshot: (accountId, day) => preparedQuery(SNAPSHOT, [accountId, day]),
};
