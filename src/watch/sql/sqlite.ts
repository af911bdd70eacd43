import { compiled, textPerCount } from "../../db/dialect/compiled.ts";
import { rowsOf } from "../../db/dialect/sqlite/placeholders.ts";
import { EVENT_COLUMNS, type EventStatements, eventParams, LISTED_COLUMNS, networkEventParams, subscriptionParams, type WatchStatements, watchParams } from "./statements.ts";

// The statements of `events` and of adding a watch in SQLite's SQL (what each does: statements.ts).

const EVENTS = textPerCount((n) => `insert into events (${EVENT_COLUMNS}) values ${rowsOf(n, 10)}`);
const POSITION = "select seq, account_id, network from events where id = ?";
// By the (account_id, seq) and (account_id, network, seq) indexes, in their order.
const AFTER = `select ${LISTED_COLUMNS} from events where account_id = ? and seq > ? order by seq limit ?`;
const AFTER_IN = `select ${LISTED_COLUMNS} from events where account_id = ? and network = ? and seq > ? order by seq limit ?`;
const AFTER_IN_UNTIL = `select ${LISTED_COLUMNS} from events where account_id = ? and network = ? and seq > ? and seq < ? order by seq limit ?`;
const SUBSCRIPTIONS = "select network, from_seq, until_seq from block_subscriptions where account_id = ? and (until_seq is null or until_seq > ?)";
const SUBSCRIPTIONS_IN = `${SUBSCRIPTIONS} and network = ?`;

// Adding one watch: by the (account_id, network, address) unique index; the plan's slots with the
// account's kept count (watch_counts, one row).
const WATCH_AT = "select id, account_id, network, address, created_at from watches where account_id = ? and network = ? and address = ?";
const SLOTS = `select p.address_slots as slots, coalesce((select c.watches from watch_counts c where c.account_id = a.id), 0) as used
from accounts a join plans p on p.name = a.plan
where a.id = ?`;
const INSERT_WATCH = "insert into watches (id, account_id, network, address, created_at) values (?, ?, ?, ?, ?)";
const ADD_TO_COUNT = "insert into watch_counts (account_id, watches) values (?, ?) on conflict (account_id) do update set watches = watch_counts.watches + excluded.watches";

export const sqliteEventStatements: EventStatements = {
  insertEvents: (rows) => compiled(EVENTS(rows.length), eventParams(rows)),
  selectEventPosition: (id) => compiled(POSITION, [id]),
  selectEventsAfter: (accountId, afterSeq, limit) => compiled(AFTER, [accountId, afterSeq, limit]),
  selectNetworkEventsAfter: (accountId, network, afterSeq, untilSeq, limit) =>
    compiled(untilSeq === null ? AFTER_IN : AFTER_IN_UNTIL, networkEventParams(accountId, network, afterSeq, untilSeq, limit)),
  selectSubscriptions: (accountId, network, afterSeq) => compiled(network === null ? SUBSCRIPTIONS : SUBSCRIPTIONS_IN, subscriptionParams(accountId, network, afterSeq)),
};

export const sqliteWatchStatements: WatchStatements = {
  selectWatchAt: (accountId, network, address) => compiled(WATCH_AT, [accountId, network, address]),
  selectSlots: (accountId) => compiled(SLOTS, [accountId]),
  insertWatch: (watch) => compiled(INSERT_WATCH, watchParams(watch)),
  addToWatchCount: (accountId, by) => compiled(ADD_TO_COUNT, [accountId, by]),
};
