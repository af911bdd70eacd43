import { compiled, textPerCount } from "../../db/dialect/compiled.ts";
import { rowsOf } from "../../db/dialect/sqlite/placeholders.ts";
import { EVENT_COLUMNS, type EventStatements, eventParams, LISTED_COLUMNS, networkEventParams, subscriptionParams } from "./statements.ts";

// The statements of `events` in SQLite's SQL (what each does: statements.ts).

const EVENTS = textPerCount((n) => `insert into events (${EVENT_COLUMNS}) values ${rowsOf(n, 10)}`);
const POSITION = "select seq, account_id, network from events where id = ?";
// By the (account_id, seq) and (account_id, network, seq) indexes, in their order.
const AFTER = `select ${LISTED_COLUMNS} from events where account_id = ? and seq > ? order by seq limit ?`;
const AFTER_IN = `select ${LISTED_COLUMNS} from events where account_id = ? and network = ? and seq > ? order by seq limit ?`;
const AFTER_IN_UNTIL = `select ${LISTED_COLUMNS} from events where account_id = ? and network = ? and seq > ? and seq < ? order by seq limit ?`;
const SUBSCRIPTIONS = "select network, from_seq, until_seq from block_subscriptions where account_id = ? and (until_seq is null or until_seq > ?)";
const SUBSCRIPTIONS_IN = `${SUBSCRIPTIONS} and network = ?`;

export const sqliteEventStatements: EventStatements = {
  insertEvents: (rows) => compiled(EVENTS(rows.length), eventParams(rows)),
  selectEventPosition: (id) => compiled(POSITION, [id]),
  selectEventsAfter: (accountId, afterSeq, limit) => compiled(AFTER, [accountId, afterSeq, limit]),
  selectNetworkEventsAfter: (accountId, network, afterSeq, untilSeq, limit) =>
    compiled(untilSeq === null ? AFTER_IN : AFTER_IN_UNTIL, networkEventParams(accountId, network, afterSeq, untilSeq, limit)),
  selectSubscriptions: (accountId, network, afterSeq) => compiled(network === null ? SUBSCRIPTIONS : SUBSCRIPTIONS_IN, subscriptionParams(accountId, network, afterSeq)),
};
