import { sql } from "kysely";
import type pg from "pg";
import { pgDriver } from "./driver.ts";
import type { Db } from "../../executor.ts";

// LISTEN/NOTIFY: how daemons sharing one database wake each other (db/wake-bus.ts).

export type PostgresListener = { close(): Promise<void> };

/**
 * LISTEN on `channel` over a connection of its own (a pooled one would be handed to queries),
 * calling `onNotify` with each payload; reconnects a second after the connection drops, calling
 * `onError` once a drop. What fails once the listener is closed, or on a connection it has left
 * (a connect or a LISTEN that close() cut short), is not a drop: said nowhere.
 */
export function listenPostgres(url: string, channel: string, onNotify: (payload: string) => void, onError: (e: unknown) => void): PostgresListener {
  let client: pg.Client | null = null;
  let closed = false;
  let retry: ReturnType<typeof setTimeout> | null = null;
  const failed = (c: pg.Client, e: unknown) => {
    if (closed || client !== c) return;
    onError(e);
    reconnect(c);
  };
  const connect = async () => {
    const c = new (pgDriver().Client)({ connectionString: url });
    client = c;
    c.on("notification", (n) => {
      if (n.channel === channel) onNotify(n.payload ?? "");
    });
    c.on("error", (e) => failed(c, e));
    c.on("end", () => reconnect(c));
    try {
      await c.connect();
      await c.query(`listen ${pgDriver().escapeIdentifier(channel)}`);
    } catch (e) {
      failed(c, e);
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
