import { Database } from "bun:sqlite";
import { CompiledQuery, type DatabaseConnection, type Driver, Kysely, SqliteAdapter } from "kysely";
// The package's ES module build: its "main" is a CommonJS build that requires Kysely's own CommonJS
// build, so a process run from source (`bun cli/index.ts`) loaded Kysely twice, about a quarter of a
// command's start. A bundle (the binary) picks the ES module build by itself.
import { BunSqliteDialect } from "kysely-bun-sqlite/dist/index.js";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import type { Db } from "../../executor.ts";
import type { DB } from "../../schema.ts";
import type { CarriesDialect } from "../../statements.ts";
import type { StorageWatch } from "../../storage-full.ts";
import { withStatementCache } from "./statement-cache.ts";

/** Kysely's SQLite adapter, naming its dialect: each folder's hand-written statements are picked by it (`db/statements.ts`). */
class SqliteAdapterNamed extends SqliteAdapter implements CarriesDialect {
  readonly dialect = "sqlite" as const;
}

/**
 * SQLite dialect whose transactions start with BEGIN IMMEDIATE: the CLI and the daemon write the
 * same file, and a deferred BEGIN that later writes fails with SQLITE_BUSY at once instead of
 * waiting out busy_timeout. Its adapter names the dialect.
 */
class ImmediateSqliteDialect extends BunSqliteDialect {
  constructor(
    private readonly sqlite: Database,
    private readonly storage: StorageWatch | undefined,
  ) {
    super({ database: withStatementCache(sqlite) });
  }

  override createAdapter() {
    return new SqliteAdapterNamed();
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection: DatabaseConnection) => {
      await connection.executeQuery(BEGIN_IMMEDIATE);
    };
    driver.commitTransaction = async (connection: DatabaseConnection) => {
      await connection.executeQuery(COMMIT);
    };
    // On a full disk (SQLITE_FULL, and likewise SQLITE_IOERR or SQLITE_NOMEM) SQLite may roll the
    // transaction back by itself; Kysely's ROLLBACK then fails with "no transaction is active" and
    // that error would replace the one that says why. The transaction is gone either way.
    driver.rollbackTransaction = async (connection: DatabaseConnection) => {
      try {
        await connection.executeQuery(CompiledQuery.raw("rollback"));
      } catch (e) {
        if (this.sqlite.inTransaction) throw e;
      }
    };
    // The driver's own mutex wakes every waiter on each release and all but one go back to
    // sleep: with N requests queued each query costs N wake-ups, which made a one-query route
    // five times slower than an auth-only one under 32 concurrent requests. This queue hands the
    // connection to the next waiter only, so the driver's mutex below it is never contended.
    const queue = fifoMutex();
    const acquire = driver.acquireConnection.bind(driver);
    const release = driver.releaseConnection.bind(driver);
    const storage = this.storage;
    const watched = new WeakSet<DatabaseConnection>();
    driver.acquireConnection = async () => {
      await queue.lock();
      const connection = await acquire();
      if (storage && !watched.has(connection)) {
        watchStorage(connection, this.sqlite, storage);
        watched.add(connection);
      }
      return connection;
    };
    driver.releaseConnection = async (connection: DatabaseConnection) => {
      await release(connection);
      queue.unlock();
    };
    return driver;
  }
}

// Built once: the delivery loop begins and commits a transaction hundreds of times a second, and a
// compiled query costs a frozen node and parameter list each time it is built.
const BEGIN_IMMEDIATE = CompiledQuery.raw("begin immediate");
const COMMIT = CompiledQuery.raw("commit");

/** Statements whose success says nothing about the disk: reads, and the ends of transactions that wrote nothing. */
const NOT_WRITES = new Set(["select", "pragma", "explain", "begin", "rollback"]);

/**
 * Reports the connection's statements to `storage`: every failure (a full disk turns it full) and,
 * while it is full, each write that reached the file (a write outside a transaction, or the commit
 * of a transaction that wrote), which turns it writable again. Costs nothing while storage is fine.
 */
function watchStorage(connection: DatabaseConnection, sqlite: Database, storage: StorageWatch): void {
  const execute = connection.executeQuery.bind(connection);
  let wroteInTransaction = false;
  connection.executeQuery = (async (query: CompiledQuery) => {
    let result: Awaited<ReturnType<typeof execute>>;
    try {
      result = await execute(query);
    } catch (e) {
      storage.failed(e);
      throw e;
    }
    if (storage.full) {
      const verb = /^\s*(\w+)/.exec(query.sql)?.[1]?.toLowerCase() ?? "";
      const writes = !NOT_WRITES.has(verb) && verb !== "commit";
      if (sqlite.inTransaction) wroteInTransaction ||= writes;
      else if (writes || (verb === "commit" && wroteInTransaction)) storage.wrote();
    }
    if (!sqlite.inTransaction) wroteInTransaction = false;
    return result;
  }) as typeof connection.executeQuery;
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
export function openSqlite(path: string, storage?: StorageWatch): Db {
  if (path !== ":memory:") createPrivately(path);
  const sqlite = new Database(path, { create: true, strict: true });
  // busy_timeout first, so the journal-mode switch itself waits for another writer.
  sqlite.run("PRAGMA busy_timeout = 5000");
  // Lets retention give deleted rows' pages back to the file system (incremental_vacuum, db/storage.ts).
  // It takes effect on a new file; an existing one keeps its mode until a VACUUM (docs/operations.md).
  // Set only where it is not set yet: setting it rewrites the file's header even when the mode is
  // the same, a write that would make every open (each CLI command, `plans list` too) wait for the
  // daemon's write lock.
  if ((sqlite.query("PRAGMA auto_vacuum").get() as { auto_vacuum: number }).auto_vacuum !== 2) sqlite.run("PRAGMA auto_vacuum = INCREMENTAL");
  sqlite.run("PRAGMA journal_mode = WAL");
  sqlite.run("PRAGMA synchronous = NORMAL");
  sqlite.run("PRAGMA foreign_keys = ON");
  // 64 MiB page cache: the (network, address) watch index of a million watches stays in memory.
  sqlite.run("PRAGMA cache_size = -65536");
  return new Kysely<DB>({ dialect: new ImmediateSqliteDialect(sqlite, storage) });
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
