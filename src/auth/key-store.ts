import type { Db } from "../db/database.ts";
import type { Clock } from "../lib/clock.ts";
import { parseJson } from "../lib/json.ts";
import { type Cidr, parseCidr } from "../net/ip.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { KeyRecord } from "./verify.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type KeyStore = { find(apiKey: string): Promise<KeyRecord | null> };

/**
 * Looks API keys up with their secrets decrypted, caching each answer (found or not) for `ttlMs`
 * of the monotonic clock: keys created or revoked by the CLI in another process are seen within
 * that time, however the wall clock steps.
 */
export function createKeyStore(deps: { db: Db; box: SecretBox; clock: Clock; ttlMs?: number }): KeyStore {
  const ttl = deps.ttlMs ?? 1000;
  const cache = new Map<string, { record: KeyRecord | null; expiresAt: number }>();
  return {
    async find(apiKey) {
      const now = deps.clock.monotonic();
      // The cache first: only strings that passed the UUID check are ever in it, and the check
      // (a regular expression) cost every request more than the lookup.
      const hit = cache.get(apiKey);
      if (hit && hit.expiresAt > now) return hit.record;
      if (!UUID.test(apiKey)) return null;
      const row = await deps.db
        .selectFrom("api_keys")
        .select(["api_key", "account_id", "secret_enc", "allow_ips"])
        .where("api_key", "=", apiKey.toLowerCase())
        .where("revoked_at", "is", null)
        .executeTakeFirst();
      const record: KeyRecord | null = row
        ? {
            apiKey: row.api_key,
            accountId: row.account_id,
            secret: deps.box.open(row.secret_enc),
            allowCidrs: parseJson<string[]>(row.allow_ips, [])
              .map(parseCidr)
              .filter((c): c is Cidr => c !== null),
          }
        : null;
      if (cache.size > 100_000) cache.clear();
      cache.set(apiKey, { record, expiresAt: now + ttl });
      return record;
    },
  };
}
