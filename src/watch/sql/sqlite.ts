import { compiled, textPerCount } from "../../db/dialect/compiled.ts";
import { rowsOf } from "../../db/dialect/sqlite/placeholders.ts";
import { EVENT_COLUMNS, type EventStatements, eventParams } from "./statements.ts";

// The statements of `events` in SQLite's SQL (what each does: statements.ts).

const EVENTS = textPerCount((n) => `insert into events (${EVENT_COLUMNS}) values ${rowsOf(n, 10)}`);

export const sqliteEventStatements: EventStatements = {
  insertEvents: (rows) => compiled(EVENTS(rows.length), eventParams(rows)),
};
