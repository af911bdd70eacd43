import { textPerCount } from "../../db/dialect/compiled.ts";
import { rowsOf } from "../../db/dialect/postgres/placeholders.ts";
import { preparedQuery } from "../../db/dialect/postgres/prepared.ts";
import { EVENT_COLUMNS, type EventStatements, eventParams } from "./statements.ts";

// The statements of `events` in PostgreSQL's SQL (what each does: statements.ts), each a named
// prepared statement on every connection.

const EVENTS = textPerCount((n) => `insert into events (${EVENT_COLUMNS}) values ${rowsOf(n, 10)}`);

export const postgresEventStatements: EventStatements = {
  insertEvents: (rows) => preparedQuery(EVENTS(rows.length), eventParams(rows)),
};
