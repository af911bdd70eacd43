import type { ArgsDef } from "citty";
import { accountNamed } from "../../src/accounts/accounts.ts";
import type { Db } from "../../src/db/database.ts";
import type { Account } from "../../src/db/schema.ts";
import { failureMessage } from "../../src/lib/failures.ts";
import { CommandError } from "../globals.ts";

/** Shown in every command's --help; the values themselves are lifted out of argv before citty runs. */
export const globalArgs = {
  config: { type: "string", description: "Config file (else $CHAINWATCH_CONFIG, else ./chainwatch.toml, else defaults)" },
  json: { type: "boolean", description: "Print one JSON document on stdout" },
  create: { type: "boolean", description: "Create the database, and the master key of a new database, when missing (migrate and serve always may)" },
} as const satisfies ArgsDef;

/** The account named by id or name, or a one-line failure. */
export async function requireAccount(db: Db, nameOrId: string): Promise<Account> {
  const found = await accountNamed(db, nameOrId);
  if (!found.ok) throw new CommandError(failureMessage(found));
  return found.account;
}
