import type { Db } from "./database.ts";
import { isPostgres } from "./dialect/detect.ts";
import { listenPostgres, notifyPostgres } from "./dialect/postgres/notifications.ts";
import type { Logger } from "../lib/log.ts";

/**
 * Wake-ups across daemons sharing one database. A daemon that queued work wakes its own worker
 * directly and, on PostgreSQL, tells the others with NOTIFY, so their loops pick the work up at
 * once instead of on their next poll. On SQLite there is one daemon: nothing to tell.
 */
export type WakeBus = {
  /** Tells the other daemons that `topic` has work (fire and forget). */
  notify(topic: string): void;
  /** Calls `fn` when another daemon notifies `topic`. */
  on(topic: string, fn: () => void): void;
  close(): Promise<void>;
};

const CHANNEL = "chainwatch_wake";

export function createWakeBus(deps: { db: Db; url: string; log: Logger }): WakeBus {
  if (!isPostgres(deps.db)) return { notify() {}, on() {}, async close() {} };
  // Our own notifications come back too: the payload carries this daemon's id to skip them.
  const self = crypto.randomUUID();
  const handlers = new Map<string, (() => void)[]>();
  const listener = listenPostgres(
    deps.url,
    CHANNEL,
    (payload) => {
      const [from, topic] = payload.split(" ");
      if (from === self) return;
      for (const fn of handlers.get(topic) ?? []) fn();
    },
    (e) => deps.log.warn("wake-up listener lost its connection; reconnecting", { error: String(e) }),
  );
  return {
    notify(topic) {
      notifyPostgres(deps.db, CHANNEL, `${self} ${topic}`).catch((e) => deps.log.warn("wake-up notify failed", { error: String(e) }));
    },
    on(topic, fn) {
      handlers.set(topic, [...(handlers.get(topic) ?? []), fn]);
    },
    close: () => listener.close(),
  };
}
