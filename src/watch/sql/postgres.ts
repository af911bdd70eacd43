import { textPerCount } from "../../db/dialect/compiled.ts";
import { rowsOf } from "../../db/dialect/postgres/placeholders.ts";
import { preparedQuery } from "../../db/dialect/postgres/prepared.ts";
import { EVENT_COLUMNS, type EventStatements, eventParams, LISTED_COLUMNS, networkEventParams, subscriptionParams, type WatchStatements, watchParams } from "./statements.ts";

// The statements of `events` and of adding a watch in PostgreSQL's SQL (what each does:
// statements.ts), each a named prepared statement on every connection.

const EVENTS = textPerCount((n) => `insert into events (${EVENT_COLUMNS}) values ${rowsOf(n, 10)}`);
const POSITION = "select seq, account_id, network from events where id = $1";
const AFTER = `select ${LISTED_COLUMNS} from events where account_id = $1 and seq > $2 order by seq limit $3`;
const AFTER_IN = `select ${LISTED_COLUMNS} from events where account_id = $1 and network = $2 and seq > $3 order by seq limit $4`;
const AFTER_IN_UNTIL = `select ${LISTED_COLUMNS} from events where account_id = $1 and network = $2 and seq > $3 and seq < $4 order by seq limit $5`;
const SUBSCRIPTIONS = "select network, from_seq, until_seq from block_subscriptions where account_id = $1 and (until_seq is null or until_seq > $2)";
const SUBSCRIPTIONS_IN = `${SUBSCRIPTIONS} and network = $3`;

// Adding one watch: by the (account_id, network, address) unique index; the plan's slots with the
// account's kept count (watch_counts, one row).
const WATCH_AT = "select id, account_id, network, address, created_at from watches where account_id = $1 and network = $2 and address = $3";
const SLOTS = `select p.address_slots as slots, coalesce((select c.watches from watch_counts c where c.account_id = a.id), 0) as used
from accounts a join plans p on p.name = a.plan
where a.id = $1`;
const INSERT_WATCH = "insert into watches (id, account_id, network, address, created_at) values ($1, $2, $3, $4, $5)";
const ADD_TO_COUNT = "insert into watch_counts (account_id, watches) values ($1, $2) on conflict (account_id) do update set watches = watch_counts.watches + excluded.watches";

export const postgresEventStatements: EventStatements = {
  insertEvents: (rows) => preparedQuery(EVENTS(rows.length), eventParams(rows)),
  selectEventPosition: (id) => preparedQuery(POSITION, [id]),
  selectEventsAfter: (accountId, afterSeq, limit) => preparedQuery(AFTER, [accountId, afterSeq, limit]),
  selectNetworkEventsAfter: (accountId, network, afterSeq, untilSeq, limit) =>
    preparedQuery(untilSeq === null ? AFTER_IN : AFTER_IN_UNTIL, networkEventParams(accountId, network, afterSeq, untilSeq, limit)),
  selectSubscriptions: (accountId, network, afterSeq) => preparedQuery(network === null ? SUBSCRIPTIONS : SUBSCRIPTIONS_IN, subscriptionParams(accountId, network, afterSeq)),
};

export const postgresWatchStatements: WatchStatements = {
  selectWatchAt: (accountId, network, address) => preparedQuery(WATCH_AT, [accountId, network, address]),
  selectSlots: (accountId) => preparedQuery(SLOTS, [accountId]),
  insertWatch: (watch) => preparedQuery(INSERT_WATCH, watchParams(watch)),
  addToWatchCount: (accountId, by) => preparedQuery(ADD_TO_COUNT, [accountId, by]),
};
