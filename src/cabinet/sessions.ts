import { sha256Hex } from "../auth/canonical.ts";
import { randomBytes } from "../lib/random.ts";
import type { Db, Executor } from "../db/database.ts";
import { removed, type RemovedRows } from "../lib/removed-rows.ts";
import type { Clock } from "../lib/clock.ts";
import type { Failure, Result } from "../lib/error-codes.ts";

/** How long a cabinet session lasts from sign-in (docs/cabinet.md: 7 days). */
export const SESSION_TTL_MS = 7 * 86_400_000;
/** A sign-in link's lifetime unless the admin says otherwise, and the longest one allowed. */
export const DEFAULT_LINK_TTL_MS = 15 * 60_000;
export const MAX_LINK_TTL_MS = 7 * 86_400_000;

/** 256 random bits, URL-safe: the secret in a sign-in link or a session cookie. */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** What is stored instead of a token. A plain hash suffices: the token has 256 bits of entropy. */
export function hashToken(token: string): string {
  return sha256Hex(token);
}

/**
 * The CSRF token of a session, derived from its (secret, never stored) cookie token: nothing to
 * store, and it cannot be computed from the database or by another site.
 */
export function csrfTokenFor(sessionToken: string): string {
  return new Bun.CryptoHasher("sha256", sessionToken).update("chainwatch cabinet csrf").digest("base64url");
}

/** Constant-time check of a submitted CSRF token against the session's. */
export function csrfMatches(sessionToken: string, submitted: string | null | undefined): boolean {
  if (!submitted) return false;
  const want = Buffer.from(csrfTokenFor(sessionToken));
  const got = Buffer.from(submitted);
  return got.length === want.length && crypto.timingSafeEqual(got, want);
}

/** Parses `15m`, `2h`, `30s`, `7d` (or plain seconds) into milliseconds; null when malformed or out of range. */
export function parseTtl(text: string): number | null {
  const m = /^(\d{1,7})([smhd]?)$/.exec(text.trim());
  if (!m) return null;
  const unit = { "": 1000, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "" | "s" | "m" | "h" | "d"];
  const ms = Number(m[1]) * unit;
  return ms >= 1000 && ms <= MAX_LINK_TTL_MS ? ms : null;
}

/** Stores a new one-time sign-in link for an account and returns its token (shown once, in the URL). */
export async function createSignInLink(deps: { db: Db; clock: Clock }, accountId: string, ttlMs: number): Promise<{ token: string; expiresAt: number }> {
  const now = deps.clock.now();
  const token = newToken();
  const expiresAt = now + ttlMs;
  await deps.db.transaction().execute(async (trx) => {
    // Links past their TTL open nothing; drop them while here so the table stays small.
    await trx.deleteFrom("cabinet_links").where("expires_at", "<=", now).execute();
    await trx.insertInto("cabinet_links").values({ token_hash: hashToken(token), account_id: accountId, expires_at: expiresAt, used_at: null, created_at: now }).execute();
  });
  return { token, expiresAt };
}

/** The account a link or session is for; `disabled`: an operator disabled it (nothing of the cabinet opens for it). */
export type SessionAccount = { accountId: string; accountName: string; disabled: boolean };

/** The account a link would sign in to, or null when it is unknown, used or expired. Consumes nothing. */
export async function peekSignInLink(deps: { db: Db; clock: Clock }, token: string): Promise<SessionAccount | null> {
  const row = await deps.db
    .selectFrom("cabinet_links")
    .innerJoin("accounts", "accounts.id", "cabinet_links.account_id")
    .select(["cabinet_links.account_id", "accounts.name", "accounts.disabled_at", "cabinet_links.used_at", "cabinet_links.expires_at"])
    .where("token_hash", "=", hashToken(token))
    .executeTakeFirst();
  if (!row || row.used_at !== null || row.expires_at <= deps.clock.now()) return null;
  return { accountId: row.account_id, accountName: row.name, disabled: row.disabled_at !== null };
}

export type Redeemed = Result<{ sessionToken: string; accountId: string; expiresAt: number }, Failure<"SIGN_IN_LINK_INVALID">>;

/**
 * Redeems a sign-in link: marks it used and opens a session, in one write transaction, so two
 * tabs (or two daemons) opening the same link cannot both get a session.
 */
export async function redeemSignInLink(deps: { db: Db; clock: Clock }, token: string): Promise<Redeemed> {
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx): Promise<Redeemed> => {
    const used = await trx
      .updateTable("cabinet_links")
      .set({ used_at: now })
      .where("token_hash", "=", hashToken(token))
      .where("used_at", "is", null)
      .where("expires_at", ">", now)
      .returning("account_id")
      .executeTakeFirst();
    if (!used) return { ok: false, code: "SIGN_IN_LINK_INVALID" };
    const sessionToken = newToken();
    const expiresAt = now + SESSION_TTL_MS;
    await trx.deleteFrom("cabinet_sessions").where("expires_at", "<=", now).execute();
    await trx.insertInto("cabinet_sessions").values({ token_hash: hashToken(sessionToken), account_id: used.account_id, expires_at: expiresAt, created_at: now }).execute();
    return { ok: true, sessionToken, accountId: used.account_id, expiresAt };
  });
}

/**
 * The account of a live session, or null (unknown, ended or expired). A session of a disabled
 * account is found, marked so, and kept: it opens the cabinet again once the account is enabled.
 */
export async function findSession(deps: { db: Db; clock: Clock }, sessionToken: string): Promise<SessionAccount | null> {
  const row = await deps.db
    .selectFrom("cabinet_sessions")
    .innerJoin("accounts", "accounts.id", "cabinet_sessions.account_id")
    .select(["cabinet_sessions.account_id", "accounts.name", "accounts.disabled_at"])
    .where("token_hash", "=", hashToken(sessionToken))
    .where("expires_at", ">", deps.clock.now())
    .executeTakeFirst();
  return row ? { accountId: row.account_id, accountName: row.name, disabled: row.disabled_at !== null } : null;
}

/** Ends a session (logout). */
export async function endSession(db: Db, sessionToken: string): Promise<void> {
  await db.deleteFrom("cabinet_sessions").where("token_hash", "=", hashToken(sessionToken)).execute();
}

/**
 * The address a sign-in link opens: `cabinet.public_url` when set (a proxy in front), else the
 * daemon's own listening address (an unspecified host becomes localhost).
 */
export function signInUrl(config: { server: { host: string; port: number }; cabinet: { public_url: string } }, token: string): string {
  const path = `/cabinet/login?token=${encodeURIComponent(token)}`;
  if (config.cabinet.public_url !== "") return `${config.cabinet.public_url.replace(/\/+$/, "")}${path}`;
  const host = ["0.0.0.0", "::", ""].includes(config.server.host) ? "localhost" : config.server.host;
  return `http://${host.includes(":") ? `[${host}]` : host}:${config.server.port}${path}`;
}

/** Deletes expired sessions and expired sign-in links (used or not): the retention worker's cabinet step. */
export async function pruneExpiredSignIns(db: Db, nowMs: number): Promise<{ sessions: number; links: number }> {
  const sessions = await db.deleteFrom("cabinet_sessions").where("expires_at", "<=", nowMs).executeTakeFirst();
  const links = await db.deleteFrom("cabinet_links").where("expires_at", "<=", nowMs).executeTakeFirst();
  return { sessions: Number(sessions.numDeletedRows), links: Number(links.numDeletedRows) };
}

/** Removes every session and sign-in link of an account, in the caller's transaction (ops/purge-account.ts). */
export async function purgeAccountSignIns(trx: Executor, accountId: string): Promise<RemovedRows> {
  const sessions = await trx.deleteFrom("cabinet_sessions").where("account_id", "=", accountId).executeTakeFirst();
  const links = await trx.deleteFrom("cabinet_links").where("account_id", "=", accountId).executeTakeFirst();
  return { cabinet_sessions: removed(sessions), cabinet_links: removed(links) };
}
