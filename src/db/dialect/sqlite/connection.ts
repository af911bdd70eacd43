import { Database } from "bun:sqlite";
import { CompiledQuery, type DatabaseConnection, type Driver, Kysely, SqliteAdapter } from "kysely";
import { BunSqliteDialect } from "kysely-bun-sqlite";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import type { Db } from "../../executor.ts";
import type { DB } from "../../schema.ts";
import type { CarriesStatements } from "../../statements.ts";
import { withStatementCache } from "./statement-cache.ts";
import { sqliteStatements } from "./statements.ts";

/** Kysely's SQLite adapter, carrying SQLite's hand-written statements (`statementsOf`). */
class SqliteAdapterWithStatements extends SqliteAdapter implements CarriesStatements {
  readonly statements = sqliteStatements;
}

/**
 * SQLite dialect whose transactions start with BEGIN IMMEDIATE: the CLI and the daemon write the
 * same file, and a deferred BEGIN that later writes fails with SQLITE_BUSY at once instead of
 * waiting out busy_timeout. Its adapter brings SQLite's statements.
 */
class ImmediateSqliteDialect extends BunSqliteDialect {
  override createAdapter() {
    return new SqliteAdapterWithStatements();
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection: DatabaseConnection) => {
      await connection.executeQuery(CompiledQuery.raw("begin immediate"));
    };
    // The driver's own mutex wakes every waiter on each release and all but one go back to
    // sleep: with N requests queued each query costs N wake-ups, which made a one-query route
    // five times slower than an auth-only one under 32 concurrent requests. This queue hands the
    // connection to the next waiter only, so the driver's mutex below it is never contended.
    const queue = fifoMutex();
    const acquire = driver.acquireConnection.bind(driver);
    const release = driver.releaseConnection.bind(driver);
    driver.acquireConnection = async () => {
      await queue.lock();
      return acquire();
    };
    driver.releaseConnection = async (connection: DatabaseConnection) => {
      await release(connection);
      queue.unlock();
    };
    return driver;
  }
}

/** A mutex that wakes exactly one waiter, first come first served. */
function fifoMutex() {
  let locked = false;
  const waiters: (() => void)[] = [];
  return {
    lock(): Promise<void> {
      if (!locked) {
        locked = true;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => waiters.push(resolve));
    },
    unlock(): void {
      const next = waiters.shift();
      // Ownership passes straight to the next waiter; `locked` stays true in between.
      if (next) next();
      else locked = false;
    },
  };
}

/** Opens (creating its folder) the SQLite file with the pragmas the daemon relies on. */
export function openSqlite(path: string): Db {
  if (path !== ":memory:") createPrivately(path);
  const sqlite = new Database(path, { create: true, strict: true });
  // busy_timeout first, so the journal-mode switch itself waits for another writer.
  sqlite.run("PRAGMA busy_timeout = 5000");
  sqlite.run("PRAGMA journal_mode = WAL");
  sqlite.run("PRAGMA synchronous = NORMAL");
  sqlite.run("PRAGMA foreign_keys = ON");
  // 64 MiB page cache: the (network, address) watch index of a million watches stays in memory.
  sqlite.run("PRAGMA cache_size = -65536");
  return new Kysely<DB>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) }) });
}

/**
 * Makes sure the database and its WAL and SHM files are never readable by other users: folders
 * created here get 0700, the file is created empty with 0600 before SQLite opens it (SQLite gives
 * -wal and -shm the mode of the main file), and files left 0644 by an older version are narrowed.
 * An existing folder is left as it is: it may be the operator's working directory.
 */
function createPrivately(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, "wx", 0o600));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
}
