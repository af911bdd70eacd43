import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { type Db, openDatabase } from "../../src/db/database.ts";
import { listenPostgres, notifyPostgres } from "../../src/db/dialect/postgres/notifications.ts";
import { onPostgres, postgresOnly } from "../support/postgres-only.ts";
import { until } from "../support/poll.ts";

// The LISTEN connection that wakes daemons sharing one database (db/wake-bus.ts). Closed with
// the daemon, it must go quietly: a `serve` stopped right after it started used to log "wake-up
// listener lost its connection; reconnecting" between "shutting down" and "stopped": its LISTEN
// was still on the way when the close ended the connection ("Client was closed and is not queryable").

const CHANNEL = "chainwatch_wake_test";

/** The server's processes of the connections listening on CHANNEL. */
async function listeningPids(db: Db): Promise<number[]> {
  const rows = await sql<{ pid: number }>`select pid from pg_stat_activity where query = ${`listen "${CHANNEL}"`}`.execute(db);
  return rows.rows.map((r) => r.pid);
}

describe.skipIf(!onPostgres)(postgresOnly("the wake-up listener on PostgreSQL"), () => {
  const url = String(process.env.CHAINWATCH_TEST_DATABASE_URL);
  // Opened in beforeAll: a skipped describe still runs its body, but never its afterAll.
  let db: Db;
  beforeAll(() => {
    db = openDatabase(url);
  });
  afterAll(() => db.destroy());

  test("closed while still connecting or asking to LISTEN, it reports no lost connection and never reconnects", async () => {
    const errors: unknown[] = [];
    // Closed 0, 1, 2, … 39 ms after they began: some while connecting, some with LISTEN in flight, some done.
    await Promise.all(
      Array.from({ length: 40 }, async (_, ms) => {
        const listener = listenPostgres(url, CHANNEL, () => {}, (e) => errors.push(e));
        await Bun.sleep(ms);
        await listener.close();
      }),
    );
    // Past the connects the close cut short, and past a reconnect's one-second delay.
    await Bun.sleep(1_500);
    expect({ errors: errors.map(String), listening: (await listeningPids(db)).length }).toEqual({ errors: [], listening: 0 });
  });

  test("its connection ended by the server, it says so once and listens again a second later", async () => {
    const errors: unknown[] = [];
    const listener = listenPostgres(url, CHANNEL, () => {}, (e) => errors.push(e));
    try {
      const [first] = await until(() => listeningPids(db), (pids) => pids.length === 1);
      await sql`select pg_terminate_backend(${first})`.execute(db);
      const [second] = await until(() => listeningPids(db), (pids) => pids.length === 1 && pids[0] !== first);
      expect({ errors: errors.length, listening: second !== first }).toEqual({ errors: 1, listening: true });
    } finally {
      await listener.close();
    }
  });

  test("open, it hears a notification; closed, it reports nothing", async () => {
    const errors: unknown[] = [];
    const heard: string[] = [];
    const listener = listenPostgres(url, CHANNEL, (p) => heard.push(p), (e) => errors.push(e));
    try {
      // LISTEN takes effect once its connection is up: notify until it is heard.
      await until(
        async () => {
          await notifyPostgres(db, CHANNEL, "ping");
          return heard.length;
        },
        (n) => n > 0,
      );
      await listener.close();
      // Anything the close set off has come by then (the close itself waited for the connection's end).
      await Bun.sleep(300);
      expect({ heard: heard[0], errors: errors.map(String) }).toEqual({ heard: "ping", errors: [] });
    } finally {
      await listener.close();
    }
  });
});
