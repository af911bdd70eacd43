import { sql, type Transaction, type CompiledQuery, type DatabaseConnection, type Driver, Kysely, type KyselyPlugin, OperationNodeTransformer, PostgresDialect, type ColumnDefinitionNode, type DataTypeNode, GeneratedNode } from "kysely";
import pg from "pg";
import type { DB } from "../schema.ts";
import type { Db } from "../database.ts";
import { fixedStatement, forPostgres } from "../fixed-sql.ts";

// Everything PostgreSQL-specific lives in this file: the driver (node-postgres through Kysely's
// own PostgresDialect), how values come back, and how the SQLite-shaped schema and fixed SQL
// translate.

/** int8 (count(*), bigint columns) and numeric (sum of bigint): numbers, as bun:sqlite gives them. */
const INT8 = 20;
const NUMERIC = 1700;
const types = {
  getTypeParser(oid: number, format?: string) {
    if (oid === INT8 || oid === NUMERIC) return (text: string) => (text === null ? null : Number(text));
    return pg.types.getTypeParser(oid, format as any);
  },
};

/**
 * Migrations are written for SQLite, whose INTEGER is 64 bits and whose AUTOINCREMENT never reuses
 * an id. On PostgreSQL the faithful column is `bigint` (millisecond timestamps overflow `integer`)
 * and an identity column. Translated here, once, so no migration changes what it runs on SQLite.
 */
class SqliteSchemaOnPostgres extends OperationNodeTransformer {
  protected override transformColumnDefinition(node: ColumnDefinitionNode): ColumnDefinitionNode {
    const out = super.transformColumnDefinition(node);
    const type = out.dataType as DataTypeNode;
    const isInteger = type.kind === "DataTypeNode" && type.dataType === "integer";
    if (!isInteger && !out.autoIncrement) return out;
    return {
      ...out,
      dataType: isInteger ? { ...type, dataType: "bigint" } : type,
      ...(out.autoIncrement ? { autoIncrement: false, generated: GeneratedNode.create({ identity: true, byDefault: true }) } : {}),
    } as ColumnDefinitionNode;
  }
}

const schemaPlugin: KyselyPlugin = {
  // Only schema statements are touched: queries pass as they are, at no cost.
  transformQuery: (args) =>
    args.node.kind === "CreateTableNode" || args.node.kind === "AlterTableNode" ? new SqliteSchemaOnPostgres().transformNode(args.node) : args.node,
  transformResult: async (args) => args.result,
};

/** Kysely's PostgresDialect whose connections translate fixed statements (`?` → `$n`). */
class ChainwatchPostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    const acquire = driver.acquireConnection.bind(driver);
    const patched = new WeakSet<DatabaseConnection>();
    driver.acquireConnection = async () => {
      const connection = await acquire();
      if (!patched.has(connection)) {
        const execute = connection.executeQuery.bind(connection);
        connection.executeQuery = <R>(q: CompiledQuery) => execute<R>(forPostgres(q));
        patched.add(connection);
      }
      return connection;
    };
    return driver;
  }
}

/** A Kysely over a pool of 10 connections to `url`. Nothing connects until the first query. */
export function openPostgres(url: string): Db {
  const pool = new pg.Pool({ connectionString: url, max: 10, types, idleTimeoutMillis: 10_000 });
  // An idle client that loses its server (restart, kill) emits `error` on the pool; without a
  // listener that would end the process. The next query simply opens a new connection.
  pool.on("error", () => {});
  return new Kysely<DB>({ dialect: new ChainwatchPostgresDialect({ pool }), plugins: [schemaPlugin] });
}

/**
 * The concurrency primitives on PostgreSQL (READ COMMITTED, many writers). See
 * `src/db/primitives.ts` for what each guarantees.
 */
export const postgresPrimitives = {
  insertionOrder: sql`position`,
  /** Row lock on the account until the transaction ends: checks and writes under it run one at a time per account. */
  async lockAccount(trx: Transaction<DB>, accountId: string): Promise<void> {
    await sql`select 1 from accounts where id = ${accountId} for update`.execute(trx);
  },
  /** A transaction-scoped advisory lock on a name: whoever holds it runs alone until commit. */
  async serialize(trx: Transaction<DB>, name: string): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtext(${`chainwatch:${name}`}))`.execute(trx);
  },
  /** Appended to a claim's SELECT: rows another daemon is claiming are passed over, not waited on. */
  claimLockClause: (alias: string) => ` for update of ${alias} skip locked`,
  /**
   * Before a claim that reads due rows in index order: after a burst the planner's statistics can
   * still describe a near-empty outbox, and it then sorts every pending row for each claim (75 ms
   * instead of 0.1 ms) until autovacuum's ANALYZE. With sorting priced out for this transaction
   * the due index, which yields the rows already in order, is the plan whatever the statistics say.
   */
  async orderedClaimPlan(trx: Transaction<DB>): Promise<void> {
    await sql`set local enable_sort = off`.execute(trx);
  },
};

export type PostgresListener = { close(): Promise<void> };

/**
 * LISTEN on `channel` over a connection of its own (a pooled one would be handed to queries),
 * calling `onNotify` with each payload; reconnects a second after the connection drops.
 */
export function listenPostgres(url: string, channel: string, onNotify: (payload: string) => void, onError: (e: unknown) => void): PostgresListener {
  let client: pg.Client | null = null;
  let closed = false;
  let retry: ReturnType<typeof setTimeout> | null = null;
  const connect = async () => {
    const c = new pg.Client({ connectionString: url });
    client = c;
    c.on("notification", (n) => {
      if (n.channel === channel) onNotify(n.payload ?? "");
    });
    c.on("error", (e) => {
      onError(e);
      reconnect(c);
    });
    c.on("end", () => reconnect(c));
    try {
      await c.connect();
      await c.query(`listen ${pg.escapeIdentifier(channel)}`);
    } catch (e) {
      onError(e);
      reconnect(c);
    }
  };
  const reconnect = (c: pg.Client) => {
    if (closed || client !== c || retry) return;
    client = null;
    c.end().catch(() => {});
    retry = setTimeout(() => {
      retry = null;
      if (!closed) void connect();
    }, 1000);
  };
  void connect();
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}

/** Sends a notification through the pool (no transaction: it is sent at once). */
export async function notifyPostgres(db: Db, channel: string, payload: string): Promise<void> {
  await sql`select pg_notify(${channel}, ${payload})`.execute(db);
}

/**
 * The per-second budgets of the cluster-wide rate limits (docs/reference.md §10): one row per limit key and
 * clock second counting what every daemon took. UNLOGGED: a budget lives for a second, so it
 * needs no WAL and may be lost in a crash (the limits then start the second afresh).
 */
export const postgresRateWindows = {
  async create(db: Kysely<any>): Promise<void> {
    await sql`create unlogged table if not exists rate_windows (limit_key text not null, second bigint not null, used bigint not null, primary key (limit_key, second))`.execute(db);
  },
  async drop(db: Kysely<any>): Promise<void> {
    await sql`drop table if exists rate_windows`.execute(db);
  },
  /**
   * Takes up to `want` of the `limit` a second of `key` in `second`: one atomic upsert (the row
   * lock orders the daemons), answering how many it got. A row past its limit keeps counting; that
   * only records demand.
   */
  async lease(db: Db, key: string, second: number, want: number, limit: number): Promise<number> {
    const { rows } = await db.executeQuery<{ used: number }>(fixedStatement(LEASE, [key, second, want]));
    const before = Number(rows[0].used) - want;
    return Math.max(0, Math.min(want, limit - before));
  },
  /** Drops the rows of seconds before `second`. */
  async prune(db: Db, second: number): Promise<void> {
    await db.executeQuery(fixedStatement("delete from rate_windows where second < ?", [second]));
  },
};

const LEASE = `insert into rate_windows (limit_key, second, used) values (?, ?, ?)
on conflict (limit_key, second) do update set used = rate_windows.used + excluded.used returning used`;

/** A two-part advisory lock key: `pg_try_advisory_lock(int4, int4)` (its own key space, apart from single-bigint keys). */
export type AdvisoryKey = readonly [number, number];

/** Session-level advisory locks held on one connection of their own; see `sessionLocksPostgres`. */
export type SessionLocks = {
  /**
   * Takes the lock on `key`, or, when this session holds it already, checks that the connection
   * still answers. False while another session holds it, or when the connection failed (reported
   * through `onLost`); never throws.
   */
  tryLock(key: AdvisoryKey): Promise<boolean>;
  /** Whether the lock is held now: false from the moment the connection errs or ends. */
  holds(key: AdvisoryKey): boolean;
  /** Ends the connection, which releases every lock it holds. */
  close(): Promise<void>;
};

// A leader that cannot tell within this long whether it still holds its lock stops leading.
const LOCK_QUERY_TIMEOUT_MS = 5_000;
// A peer that vanished without closing its socket (a machine powered off, a network cut) is seen by
// TCP keepalives only. Both ends probe after 10 s idle, every 5 s, 3 times: the server frees the
// locks of a vanished daemon within about 25 s (instead of the OS default of two hours), and such a
// daemon stops leading sooner, when its per-poll check times out (LOCK_QUERY_TIMEOUT_MS).
const KEEPALIVE_SQL = "set tcp_keepalives_idle = 10; set tcp_keepalives_interval = 5; set tcp_keepalives_count = 3";

/**
 * Session-level advisory locks (`pg_try_advisory_lock`) on a dedicated `pg.Client`, not a pooled
 * connection: a session lock belongs to the connection that took it, and a pool would hand that
 * connection to other queries and close it when idle. PostgreSQL frees the locks when the session
 * ends, so a daemon that dies (even by SIGKILL: the kernel closes its socket, the server sees EOF
 * at once) hands them over to the next `tryLock` elsewhere. The connection opens at the first
 * `tryLock` and again at the next one after it dropped; a drop (an `error` or `end` event, a failed
 * or timed-out query) clears every lock at once. Locks are re-entrant in PostgreSQL, so a key held
 * already is never locked a second time, only confirmed with a round trip.
 */
export function sessionLocksPostgres(url: string, onLost: (e: unknown) => void): SessionLocks {
  let client: pg.Client | null = null;
  let connecting: Promise<pg.Client> | null = null;
  let closed = false;
  const held = new Set<string>();
  const id = (key: AdvisoryKey) => `${key[0]}:${key[1]}`;

  const drop = (c: pg.Client, e: unknown) => {
    if (client !== c) return;
    client = null;
    held.clear();
    c.end().catch(() => {});
    if (!closed) onLost(e);
  };
  const connection = (): Promise<pg.Client> => {
    if (client) return Promise.resolve(client);
    connecting ??= (async () => {
      const c = new pg.Client({
        connectionString: url,
        keepAlive: true,
        keepAliveInitialDelayMillis: 10_000,
        query_timeout: LOCK_QUERY_TIMEOUT_MS,
        connectionTimeoutMillis: LOCK_QUERY_TIMEOUT_MS,
      });
      c.on("error", (e) => drop(c, e));
      c.on("end", () => drop(c, new Error("lock connection ended")));
      try {
        await c.connect();
        await c.query(KEEPALIVE_SQL);
      } catch (e) {
        c.end().catch(() => {});
        throw e;
      }
      if (closed) {
        await c.end().catch(() => {});
        throw new Error("closed");
      }
      client = c;
      return c;
    })().finally(() => {
      connecting = null;
    });
    return connecting;
  };

  return {
    async tryLock(key) {
      if (closed) return false;
      let c: pg.Client;
      try {
        c = await connection();
      } catch (e) {
        if (!closed) onLost(e);
        return false;
      }
      try {
        if (held.has(id(key))) {
          await c.query("select 1");
        } else {
          const r = await c.query<{ locked: boolean }>("select pg_try_advisory_lock($1::int4, $2::int4) as locked", [key[0], key[1]]);
          // The connection may have dropped while the answer travelled: the lock went with it.
          if (r.rows[0]?.locked && client === c) held.add(id(key));
        }
      } catch (e) {
        drop(c, e);
        return false;
      }
      return client === c && held.has(id(key));
    },
    holds: (key) => held.has(id(key)),
    async close() {
      closed = true;
      held.clear();
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}
