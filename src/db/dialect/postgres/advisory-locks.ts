import type pg from "pg";
import { pgDriver } from "./driver.ts";

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
  /**
   * Runs a statement on the session that holds `key`, so that it runs only while the lock is held
   * (a session that has gone, and its locks with it, runs nothing more). Throws when `key` is not
   * held or the connection fails (which drops it, like a failed `tryLock`).
   */
  queryHolding<R extends Record<string, unknown>>(key: AdvisoryKey, sql: string, params: readonly unknown[]): Promise<R[]>;
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
      const c = new (pgDriver().Client)({
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
    async queryHolding<R extends Record<string, unknown>>(key: AdvisoryKey, sql: string, params: readonly unknown[]) {
      const c = client;
      if (closed || !c || !held.has(id(key))) throw new Error("the lock is not held");
      try {
        return (await c.query<R>(sql, [...params])).rows;
      } catch (e) {
        drop(c, e);
        throw e;
      }
    },
    async close() {
      closed = true;
      held.clear();
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}
