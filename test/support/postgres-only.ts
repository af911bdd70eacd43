// Tests that need PostgreSQL (several daemons on one database, advisory locks, LISTEN/NOTIFY) are
// skipped on the default SQLite run. Their names say so, and the run prints once how to enable them.

/** Whether this run of the suite is on PostgreSQL. */
export const onPostgres = Boolean(process.env.CHAINWATCH_TEST_DATABASE_URL);

/** How to run the PostgreSQL-only tests. */
export const POSTGRES_HOW_TO =
  "url=$(test/support/postgres.sh start DIR) && CHAINWATCH_TEST_DATABASE_URL=$url bun test --timeout 30000 <paths>; test/support/postgres.sh stop DIR";

let told = false;

/**
 * The name of a PostgreSQL-only `describe`/`test`: unchanged on PostgreSQL; on SQLite it says it
 * is skipped and why, and the first one of the run prints how to run them on stdout.
 */
export function postgresOnly(name: string): string {
  if (onPostgres) return name;
  if (!told) {
    told = true;
    console.log(`PostgreSQL-only tests are skipped (CHAINWATCH_TEST_DATABASE_URL is unset); to run them: ${POSTGRES_HOW_TO}`);
  }
  return `${name} [skipped: PostgreSQL only, set CHAINWATCH_TEST_DATABASE_URL (test/support/postgres.sh start DIR)]`;
}

/**
 * The name of a `describe` the PostgreSQL run skips: it works on a SQLite file of its own (or the
 * embedded default) whatever the run, so the PostgreSQL run would repeat the SQLite run's test byte
 * for byte. Skip it with `describe.skipIf(onPostgres)`, and return early from the file's own
 * `beforeAll` on PostgreSQL (bun runs a file's hooks even when every test in it is skipped).
 */
export function ownSqliteFile(name: string): string {
  return onPostgres ? `${name} [skipped: it runs on a SQLite file of its own whatever the run, and the SQLite run ran it]` : name;
}

/**
 * The name of a `describe` the PostgreSQL run skips because nothing it checks is the database's
 * (the SDK built, packed and installed, say): the SQLite run ran it, and the PostgreSQL run would
 * repeat it. Skip it with `describe.skipIf(onPostgres)`, and return early from the file's own
 * `beforeAll` on PostgreSQL, as for ownSqliteFile.
 */
export function sameOnEveryDatabase(name: string): string {
  return onPostgres ? `${name} [skipped: nothing it checks depends on the database, and the SQLite run ran it]` : name;
}
