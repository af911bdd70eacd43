import { textPerCount } from "../../db/dialect/compiled.ts";
import { rowsOf } from "../../db/dialect/postgres/placeholders.ts";
import { preparedQuery } from "../../db/dialect/postgres/prepared.ts";
import { EVENT_COLUMNS, type EventStatements, eventParams, LISTED_COLUMNS, networkEventParams, subscriptionParams } from "./statements.ts";

// The statements of `events` in PostgreSQL's SQL (what each does: statements.ts), each a named
// prepared statement on every connection.

const EVENTS = textPerCount((n) => `insert into events (${EVENT_COLUMNS}) values ${rowsOf(n, 10)}`);
const POSITION = "select seq, account_id, network from events where id = $1";
const AFTER = `select ${LISTED_COLUMNS} from events where account_id = $1 and seq > $2 order by seq limit $3`;
const AFTER_IN = `select ${LISTED_COLUMNS} from events where account_id = $1 and network = $2 and seq > $3 order by seq limit $4`;
const AFTER_IN_UNTIL = `select ${LISTED_COLUMNS} from events where account_id = $1 and network = $2 and seq > $3 and seq < $4 order by seq limit $5`;
const SUBSCRIPTIONS = "select network, from_seq, until_seq from block_subscriptions where account_id = $1 and (until_seq is null or until_seq > $2)";
const SUBSCRIPTIONS_IN = `${SUBSCRIPTIONS} and network = $3`;

export const postgresEventStatements: EventStatements = {
  insertEvents: (rows) => preparedQuery(EVENTS(rows.length), eventParams(rows)),
  selectEventPosition: (id) => preparedQuery(POSITION, [id]),
  selectEventsAfter: (accountId, afterSeq, limit) => preparedQuery(AFTER, [accountId, afterSeq, limit]),
  selectNetworkEventsAfter: (accountId, network, afterSeq, untilSeq, limit) =>
    preparedQuery(untilSeq === null ? AFTER_IN : AFTER_IN_UNTIL, networkEventParams(accountId, network, afterSeq, untilSeq, limit)),
  selectSubscriptions: (accountId, network, afterSeq) => preparedQuery(network === null ? SUBSCRIPTIONS : SUBSCRIPTIONS_IN, subscriptionParams(accountId, network, afterSeq)),
};
