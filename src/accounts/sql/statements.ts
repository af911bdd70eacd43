import type { CompiledQuery } from "kysely";

// The hot-path statements of the account views and of the API keys' look-up (why hand-written:
// `src/db/statements.ts`): what each does, here; each dialect's text in `sqlite.ts` and
// `postgres.ts` beside this file.

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

/** An API key as the signed API checks it: its sealed secret, its allowlist and its account's state. */
export type LiveKeyRow = {
  api_key: string;
  account_id: string;
  secret_enc: string;
  /** JSON array of CIDR strings; empty = any IP. */
  allow_ips: string;
  disabled_at: number | null;
};

/** The hand-written statements of the account views and the key look-up. */
export type AccountStatements = {
  /** The account snapshot for `day` (YYYY-MM-DD, UTC); no row when the account does not exist. */
  accountSnapshot(accountId: string, day: string): CompiledQuery<AccountSnapshotRow>;
  /** The key `apiKey` (lower case) unless it is revoked; no row for an unknown or revoked key. */
  liveKey(apiKey: string): CompiledQuery<LiveKeyRow>;
};
