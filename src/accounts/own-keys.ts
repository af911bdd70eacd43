import type { Db } from "../db/database.ts";
import type { Clock } from "../lib/clock.ts";
import { type Failure, type InvalidInput, type Result } from "../lib/error-codes.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import { type CreatedKey, createApiKey, revokeApiKey } from "./api-keys.ts";

// An account holder managing the account's own API keys (the cabinet). The operator's CLI uses
// api-keys.ts directly, for any account.

/** Creates a key for the account; a blank label is none (a long one is refused by createApiKey). The secret is in the result, this once. */
export async function createOwnKey(
  deps: { db: Db; clock: Clock; box: SecretBox },
  accountId: string,
  input: { label: string; allowIps: string[] },
): Promise<Result<{ key: CreatedKey }, InvalidInput>> {
  const label = input.label.trim();
  return createApiKey(deps, { accountId, allowIps: input.allowIps, label: label || null });
}

/** Revokes one of the account's active keys; another account's key, or a revoked one, is not found. */
export async function revokeOwnKey(deps: { db: Db; clock: Clock }, accountId: string, apiKey: string): Promise<Result<object, Failure<"KEY_NOT_FOUND">>> {
  return (await revokeApiKey(deps.db, deps.clock, apiKey, accountId)) ? { ok: true } : { ok: false, code: "KEY_NOT_FOUND" };
}
