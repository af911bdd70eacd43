import type { CompiledQuery } from "kysely";
import { compiled } from "../compiled.ts";

// Named prepared statements for PostgreSQL's hand-written statements (each folder's
// `sql/postgres.ts`, and the rate budgets here). Given a name, node-postgres parses a text once
// per connection and afterwards sends only Bind and Execute: the server skips parsing and, once its plan is cached, planning too. A delivery's claim
// and settlement run a dozen of these per batch, so that is most of what the server does for them.
// Only texts registered here are prepared: a query Kysely builds per call keeps the unnamed
// statement (a name per distinct text would fill every connection's statement cache).

/** Text → name, for every connection of the process; a text keeps its name for the process's life. */
const names = new Map<string, string>();

/** Registers `text` as prepared (idempotent) and returns it. */
export function prepared(text: string): string {
  if (!names.has(text)) names.set(text, `cw_${names.size + 1}`);
  return text;
}

/** The name `text` is prepared under, or undefined when it is not one of the registered texts. */
export function preparedName(text: string): string | undefined {
  return names.get(text);
}

/** A compiled query of hand-written SQL whose text is prepared once per connection. */
export function preparedQuery<R = unknown>(sql: string, parameters: unknown[]): CompiledQuery<R> {
  return compiled<R>(prepared(sql), parameters);
}
