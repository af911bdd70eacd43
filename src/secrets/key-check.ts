import type { Db } from "../db/database.ts";
import { type Result, type StartupFailure, startupFailure } from "../lib/error-codes.ts";
import type { SecretBox } from "./secret-box.ts";

/**
 * Opens one stored sealed secret with the box. A different master key (a wrong
 * CHAINWATCH_MASTER_KEY, a lost key file) then stops start-up with the reason, instead of every
 * signed request answering 500 and every CLI command failing on decryption. A fresh database passes.
 */
export async function checkMasterKey(db: Db, box: SecretBox): Promise<Result<object, StartupFailure>> {
  const row = await db.selectFrom("webhook_endpoints").select("secret_enc").limit(1).executeTakeFirst();
  if (!row) return { ok: true };
  try {
    box.open(row.secret_enc);
    return { ok: true };
  } catch {
    return startupFailure("the master key cannot decrypt the secrets stored in the database (wrong CHAINWATCH_MASTER_KEY or master_key_file?)");
  }
}
