import { sql } from "kysely";
import { unavailableReason } from "./availability.ts";
import type { Db } from "./executor.ts";

/** What `/healthz` learns of the database: it answered, or why not. */
export type DatabaseHealth = { ok: true } | { ok: false; reason: string };

/**
 * Asks the database a trivial query and answers within `waitMs` whatever it does: a load balancer
 * polling `/healthz` gets an answer, not a hang, while the database restarts or stalls. Callers
 * that ask while a probe is in flight share it, so a stalled database sees one probe at a time.
 */
export function createDatabaseProbe(db: Db, waitMs: number): () => Promise<DatabaseHealth> {
  let inFlight: Promise<DatabaseHealth> | null = null;
  const probe = async (): Promise<DatabaseHealth> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<DatabaseHealth>((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, reason: `the database did not answer within ${waitMs} ms` }), waitMs);
    });
    const asked = sql`select 1`.execute(db).then(
      (): DatabaseHealth => ({ ok: true }),
      (e: unknown): DatabaseHealth => ({ ok: false, reason: unavailableReason(e) }),
    );
    try {
      return await Promise.race([asked, late]);
    } finally {
      clearTimeout(timer);
    }
  };
  return () => {
    inFlight ??= probe().finally(() => {
      inFlight = null;
    });
    return inFlight;
  };
}
