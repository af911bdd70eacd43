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

/**
 * Looks API keys up with their secrets decrypted, caching each answer (found or not) for `ttlMs`
 * of the monotonic clock: keys created or revoked by the CLI in another process are seen within
 * that time, however the wall clock steps. So is an account disabled or enabled (`accounts
 * disable`): the record carries the account's state, read in the same look-up.
 */
export function createKeyStore(deps: { db: Db; box: SecretBox; clock: Clock; ttlMs?: number }): KeyStore {
  const ttl = deps.ttlMs ?? 1000;
  const cache = new Map<string, { record: KeyRecord | null; expiresAt: number }>();
  const load = async (apiKey: string, now: number): Promise<KeyRecord | null> => {
    const row = await deps.db
      .selectFrom("api_keys")
      .innerJoin("accounts", "accounts.id", "api_keys.account_id")
      .select(["api_keys.api_key", "api_keys.account_id", "api_keys.secret_enc", "api_keys.allow_ips", "accounts.disabled_at"])
      .where("api_keys.api_key", "=", apiKey.toLowerCase())
      .where("api_keys.revoked_at", "is", null)
      .executeTakeFirst();
    const record: KeyRecord | null = row
      ? {
          apiKey: row.api_key,
          accountId: row.account_id,
          secret: deps.box.open(row.secret_enc),
          allowCidrs: parseJson<string[]>(row.allow_ips, [])
            .map(parseCidr)
            .filter((c): c is Cidr => c !== null),
          accountDisabled: row.disabled_at !== null,
        }
      : null;
    if (cache.size > 100_000) cache.clear();
    cache.set(apiKey, { record, expiresAt: now + ttl });
    return record;
  };
  return {
    find(apiKey) {
      const now = deps.clock.monotonic();
      // The cache first: only strings that passed the UUID check are ever in it, and the check
      // (a regular expression) cost every request more than the lookup.
      const hit = cache.get(apiKey);
      if (hit && hit.expiresAt > now) return hit.record;
      if (!UUID.test(apiKey)) return null;
      return load(apiKey, now);
    },
  };
}
