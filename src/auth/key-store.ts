import { accountStatements } from "../accounts/sql/dialects.ts";
import type { LiveKeyRow } from "../accounts/sql/statements.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../lib/clock.ts";
import { parseJson } from "../lib/json.ts";
import type { MaybePromise } from "../lib/maybe-promise.ts";
import { type Cidr, parseCidr } from "../net/ip.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { KeyRecord } from "./verify.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `find` answers a cached key (or its absence) at once, a promise only when it reads the database. */
export type KeyStore = { find(apiKey: string): MaybePromise<KeyRecord | null> };

/** A cached answer, with the row's sealed secret and allowlist text it was made from (none for a miss). */
type Entry = { record: KeyRecord | null; expiresAt: number; sealed: string | null; allowIps: string | null };

/**
 * Looks API keys up with their secrets decrypted, caching each answer (found or not) for `ttlMs`
 * of the monotonic clock: keys created or revoked by the CLI in another process are seen within
 * that time, however the wall clock steps. So is an account disabled or enabled (`accounts
 * disable`): the record carries the account's state, read in the same look-up.
 *
 * Every key in use is read again once a `ttlMs`, so a read costs each key in use that much a
 * second: one hand-written statement, and the secret opened again (AES-GCM) only when its sealed
 * text changed, the allowlist parsed again only when its text did. Requests that find the same key
 * expired while it is being read wait for that one read.
 */
export function createKeyStore(deps: { db: Db; box: SecretBox; clock: Clock; ttlMs?: number }): KeyStore {
  const ttl = deps.ttlMs ?? 1000;
  const cache = new Map<string, Entry>();
  const reading = new Map<string, Promise<KeyRecord | null>>();
  const load = async (apiKey: string, now: number): Promise<KeyRecord | null> => {
    const { rows } = await deps.db.executeQuery(accountStatements(deps.db).liveKey(apiKey.toLowerCase()));
    const row = rows[0];
    const record = row ? recordOf(row, cache.get(apiKey)) : null;
    if (cache.size > 100_000) cache.clear();
    cache.set(apiKey, { record, expiresAt: now + ttl, sealed: row?.secret_enc ?? null, allowIps: row?.allow_ips ?? null });
    return record;
  };
  /** The record of `row`, keeping what the last answer already had when the row's texts did not change. */
  const recordOf = (row: LiveKeyRow, before: Entry | undefined): KeyRecord => {
    const last = before?.record;
    const secret = last && before.sealed === row.secret_enc ? last.secret : deps.box.open(row.secret_enc);
    const allowCidrs = last && before.allowIps === row.allow_ips ? last.allowCidrs : parseAllowlist(row.allow_ips);
    const accountDisabled = row.disabled_at !== null;
    if (last && last.secret === secret && last.allowCidrs === allowCidrs && last.accountId === row.account_id && last.accountDisabled === accountDisabled) return last;
    return { apiKey: row.api_key, accountId: row.account_id, secret, allowCidrs, accountDisabled };
  };
  return {
    find(apiKey) {
      const now = deps.clock.monotonic();
      // The cache first: only strings that passed the UUID check are ever in it, and the check
      // (a regular expression) cost every request more than the lookup.
      const hit = cache.get(apiKey);
      if (hit && hit.expiresAt > now) return hit.record;
      if (!UUID.test(apiKey)) return null;
      let read = reading.get(apiKey);
      if (!read) {
        read = load(apiKey, now).finally(() => reading.delete(apiKey));
        reading.set(apiKey, read);
      }
      return read;
    },
  };
}

function parseAllowlist(text: string): Cidr[] {
  return parseJson<string[]>(text, [])
    .map(parseCidr)
    .filter((c): c is Cidr => c !== null);
}
