import type pg from "pg";

// node-postgres, loaded the first time a PostgreSQL database is opened. A process on SQLite never
// loads it: its modules, and the Node streams its use of node:crypto brings in, cost a fresh
// process about a quarter of a short CLI command's CPU.

let loaded: typeof pg | undefined;

/** The `pg` module, loaded on first call. */
export function pgDriver(): typeof pg {
  loaded ??= require("pg") as typeof pg;
  return loaded;
}
