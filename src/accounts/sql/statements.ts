import type { CompiledQuery } from "kysely";

// The hot-path statement of the account views (why hand-written: `src/db/statements.ts`): what it
// does, here; each dialect's text in `sqlite.ts` and `postgres.ts` beside this file.

/** What GET /v1/account shows of an account, read in one statement. */
export type AccountSnapshotRow = {
  id: string;
  name: string;
  plan: string;
  credits: number;
  address_slots: number;
  rpc_rps: number;
  monthly_credits: number;
  slots_used: number;
  spent_today: number;
};

/** The hand-written statements of the account views. */
export type AccountStatements = {
  /** The account snapshot for `day` (YYYY-MM-DD, UTC); no row when the account does not exist. */
  accountSnapshot(accountId: string, day: string): CompiledQuery<AccountSnapshotRow>;
};
