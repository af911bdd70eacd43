import { sql } from "kysely";
import type { Db } from "./executor.ts";
import { type Result, type StartupFailure, startupFailure } from "../lib/error-codes.ts";

/** A database URL fit to print: a PostgreSQL URL's password becomes `***`; anything else is unchanged. */
export function maskedDatabaseUrl(url: string): string {
  if (!/^postgres(ql)?:\/\//.test(url) || !URL.canParse(url)) return url;
  const u = new URL(url);
  if (!u.password) return url;
  u.password = "***";
  return u.href;
}

/** What a driver error carries: node's socket errors have a `code` (ECONNREFUSED), PostgreSQL's a SQLSTATE. */
type DriverError = { message?: string; code?: string; errors?: { message?: string }[] };

/** What to check for the common ways a connection fails, by error code. */
const NEXT_STEP: Record<string, string> = {
  ECONNREFUSED: "nothing accepts connections there: is the database server running, and are the host and port right?",
  ENOTFOUND: "the host name does not resolve",
  EAI_AGAIN: "the host name does not resolve (DNS did not answer)",
  ETIMEDOUT: "the server did not answer: check the host, the port and any firewall",
  EHOSTUNREACH: "the host is unreachable",
  "28P01": "check the user name and password",
  "28000": "the server refused this user from this host (pg_hba.conf)",
  "3D000": "create the database first (createdb), or name one that exists",
};

/** One line for a failed first query: the driver's words (an AggregateError's, one per address tried) and the next step. */
export function describeConnectionError(url: string, error: unknown): string {
  const e = (error ?? {}) as DriverError;
  const said = e.message || e.errors?.map((x) => x.message).filter(Boolean).join("; ") || e.code || String(error);
  const step = e.code ? NEXT_STEP[e.code] : undefined;
  return `cannot connect to the database at ${maskedDatabaseUrl(url)} (config key \`database.url\`): ${said}${step ? `; ${step}` : ""}`;
}

/**
 * Runs one trivial query so that a database that cannot be reached stops start-up with a sentence
 * naming `database.url`, rather than surfacing later as a failed migration.
 */
export async function checkConnection(db: Db, url: string): Promise<Result<{}, StartupFailure>> {
  try {
    await sql`select 1`.execute(db);
    return { ok: true };
  } catch (error) {
    return startupFailure(describeConnectionError(url, error));
  }
}
