import { preparedQuery } from "../../db/dialect/postgres/prepared.ts";
import type { AccountStatements } from "./statements.ts";

// The statements of the account views and the key look-up in PostgreSQL's SQL (what each does:
// statements.ts), named prepared statements on every connection.

// slots_used reads the same count as slotsUsed (watch/watches.ts).
const SNAPSHOT = `select a.id, a.name, a.plan, a.credits, p.address_slots, p.rpc_rps, p.monthly_credits,
  coalesce((select c.watches from watch_counts c where c.account_id = a.id), 0) as slots_used,
  coalesce((select u.credits from usage_daily u where u.account_id = a.id and u.day = $2), 0) as spent_today
from accounts a join plans p on p.name = a.plan
where a.id = $1`;

const LIVE_KEY = `select k.api_key, k.account_id, k.secret_enc, k.allow_ips, a.disabled_at
from api_keys k join accounts a on a.id = k.account_id
where k.api_key = $1 and k.revoked_at is null`;

export const postgresAccountStatements: AccountStatements = {
  accountSnapshot: (accountId, day) => preparedQuery(SNAPSHOT, [accountId, day]),
  liveKey: (apiKey) => preparedQuery(LIVE_KEY, [apiKey]),
};
