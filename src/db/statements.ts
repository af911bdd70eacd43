import type { DialectName, Executor } from "./executor.ts";

// The hot paths (a delivery's claim and settlement, event inserts, usage, credit charges and
// leases, endpoint health, the account snapshot) run hand-written SQL instead of a query built per
// call: at thousands of statements a second, building and compiling a query costs more than SQLite
// spends running it, and a text that never changes lets the driver reuse the database's compiled
// statement. The folder that owns a table writes its statements, in each dialect's own SQL, beside
// its code: `<folder>/sql/statements.ts` says what each does and builds the parameters both
// dialects bind, `sql/sqlite.ts` and `sql/postgres.ts` hold the texts (own placeholders, planner
// hints and locks), and `sql/dialects.ts` hands the code the set of its database's dialect, which
// the database's adapter names from the moment it is opened. Nothing rewrites SQL text.

/** What the adapter of a dialect opened by `openDatabase` carries besides Kysely's own: the dialect's name. */
export type CarriesDialect = { readonly dialect: DialectName };

/** A folder's hand-written statements, one set per dialect (`<folder>/sql/sqlite.ts`, `<folder>/sql/postgres.ts`). */
export type PerDialect<S> = { readonly [D in DialectName]: S };

/**
 * The dialect `db` was opened with (a transaction shares its database's), read off its adapter:
 * chosen once, when the database is opened.
 */
export function dialectOf(db: Executor): DialectName {
  const { dialect } = db.getExecutor().adapter as Partial<CarriesDialect>;
  if (!dialect) throw new Error("the database was not opened with openDatabase: no statements for its dialect");
  return dialect;
}

/** Hands the code that runs a folder's statements the set of the database's dialect. */
export function perDialect<S>(sets: PerDialect<S>): (db: Executor) => S {
  return (db) => sets[dialectOf(db)];
}
