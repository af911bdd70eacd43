import { sql } from "kysely";
import type { Explained, Result } from "../lib/error-codes.ts";
import { unavailableReason } from "./availability.ts";
import type { Db } from "./executor.ts";

/** What `/healthz` learns of the database: it answered, or a DATABASE_UNAVAILABLE whose sentence says why not. */
export type DatabaseHealth = Result<object, Explained<"DATABASE_UNAVAILABLE">>;

const unavailable = (reason: string): DatabaseHealth => ({ ok: false, code: "DATABASE_UNAVAILABLE", error: `database unavailable: ${reason}` });

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
      timer = setTimeout(() => resolve(unavailable(`the database did not answer within ${waitMs} ms`)), waitMs);
    });
    const asked = sql`select 1`.execute(db).then(
      (): DatabaseHealth => ({ ok: true }),
      (e: unknown) => unavailable(unavailableReason(e)),
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
