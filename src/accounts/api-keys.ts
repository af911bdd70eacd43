import { randomBytes } from "../lib/random.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../lib/clock.ts";
import { type Explained, type Failure, type InvalidInput, invalidInput, type Result } from "../lib/error-codes.ts";
import { parseJson } from "../lib/json.ts";
import { rfc3339 } from "../lib/time.ts";
import { parseCidr } from "../net/ip.ts";
import type { SecretBox } from "../secrets/secret-box.ts";

/** The longest label a key may carry (the cabinet's form and the CLI's flag alike). */
export const MAX_KEY_LABEL = 100;

export type CreatedKey = { api_key: string; secret: string; account_id: string; allow_ips: string[]; label: string | null };
export type KeyResult = Result<{ key: CreatedKey }, InvalidInput>;

/** Creates an API key (a UUID) with a 64-hex secret, sealed at rest; the only time the secret is returned. */
export async function createApiKey(
  deps: { db: Db; clock: Clock; box: SecretBox },
  input: { accountId: string; allowIps: string[]; label?: string | null },
): Promise<KeyResult> {
  const refused = allowIpsError(input.allowIps);
  if (refused !== null) return invalidInput(refused);
  if ((input.label?.length ?? 0) > MAX_KEY_LABEL) return invalidInput(`label must be at most ${MAX_KEY_LABEL} characters`);
  const key: CreatedKey = {
    api_key: crypto.randomUUID(),
    secret: randomBytes(32).toString("hex"),
    account_id: input.accountId,
    allow_ips: input.allowIps,
    label: input.label ?? null,
  };
  await deps.db
    .insertInto("api_keys")
    .values({
      api_key: key.api_key,
      account_id: key.account_id,
      secret_enc: deps.box.seal(key.secret),
      allow_ips: JSON.stringify(key.allow_ips),
      label: key.label,
      created_at: deps.clock.now(),
      revoked_at: null,
    })
    .execute();
  return { ok: true, key };
}

/** Keys with their metadata, never their secrets. */
export async function listApiKeys(db: Db, accountId?: string) {
  let q = db.selectFrom("api_keys").select(["api_key", "account_id", "allow_ips", "label", "created_at", "revoked_at"]);
  if (accountId) q = q.where("account_id", "=", accountId);
  const rows = await q.orderBy("created_at").execute();
  return rows.map((r) => ({
    api_key: r.api_key,
    account_id: r.account_id,
    allow_ips: parseJson<string[]>(r.allow_ips, []),
    label: r.label,
    created_at: rfc3339(r.created_at),
    revoked_at: r.revoked_at === null ? null : rfc3339(r.revoked_at),
  }));
}

/** Revokes a key; false when no such active key exists (or, given `accountId`, it is another account's). */
export async function revokeApiKey(db: Db, clock: Clock, apiKey: string, accountId?: string): Promise<boolean> {
  let q = db
    .updateTable("api_keys")
    .set({ revoked_at: clock.now() })
    .where("api_key", "=", apiKey.toLowerCase())
    .where("revoked_at", "is", null);
  if (accountId !== undefined) q = q.where("account_id", "=", accountId);
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** The operator's revoke of any account's key: KEY_NOT_FOUND, naming the key, when no such key is active. */
export async function revokeKey(deps: { db: Db; clock: Clock }, apiKey: string): Promise<Result<object, Explained<"KEY_NOT_FOUND">>> {
  if (await revokeApiKey(deps.db, deps.clock, apiKey)) return { ok: true };
  return { ok: false, code: "KEY_NOT_FOUND", error: `no active API key ${apiKey}` };
}

/** The first entry of an allowlist that is not an IP address or CIDR, if any. */
export function invalidAllowIp(allowIps: readonly string[]): string | undefined {
  return allowIps.find((c) => parseCidr(c) === null);
}

/** The client-facing refusal of an allowlist, or null when every entry is an IP address or CIDR. */
export function allowIpsError(allowIps: readonly string[]): string | null {
  const bad = invalidAllowIp(allowIps);
  return bad === undefined ? null : `${bad} is not an IP address or CIDR`;
}

export type AllowIpsResult = { ok: true } | InvalidInput | Failure<"KEY_NOT_FOUND">;

/** Replaces the IP allowlist of an account's active key (empty: any IP); the daemon sees it within a second. */
export async function setAllowIps(db: Db, accountId: string, apiKey: string, allowIps: string[]): Promise<AllowIpsResult> {
  const error = allowIpsError(allowIps);
  if (error !== null) return invalidInput(error);
  const res = await db
    .updateTable("api_keys")
    .set({ allow_ips: JSON.stringify(allowIps) })
    .where("api_key", "=", apiKey.toLowerCase())
    .where("account_id", "=", accountId)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) return { ok: false, code: "KEY_NOT_FOUND" };
  return { ok: true };
}
