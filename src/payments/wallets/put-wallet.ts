import { type Static, Type as T } from "@sinclair/typebox";
import { findNetwork, unknownNetwork } from "../../config/networks.ts";
import type { NetworkConfig } from "../../config/schema.ts";
import type { Db } from "../../db/database.ts";
import { lockAccount } from "../../db/primitives.ts";
import type { PaymentWallet } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { type InvalidInput, invalidInput, type Result } from "../../lib/error-codes.ts";
import { newId } from "../../lib/ids.ts";
import { checkBody } from "../../lib/value-errors.ts";
import type { SecretBox } from "../../secrets/secret-box.ts";
import { addressDeriver } from "./derive-address.ts";
import { holdsPrivateKey } from "./extended-key.ts";
import { MAX_KEY_LENGTH, PRIVATE_KEY_REFUSAL, parseWalletKey } from "./wallet-key.ts";
import { activeWallet, walletOfKey, type WalletView, walletView } from "./wallets.ts";

// PUT /v1/payments/wallets/{network} (docs/payments.md): the account's wallet on a network.

export const DEFAULT_GAP_LIMIT = 20;
export const MAX_GAP_LIMIT = 10_000;

/** The body of PUT /v1/payments/wallets/{network}. */
export const PutWalletBody = T.Object(
  {
    key: T.String({
      maxLength: MAX_KEY_LENGTH,
      description:
        "btc family: an output descriptor (pkh, sh(wpkh), wpkh or tr over KEY/0/*, optional [origin] and #checksum) or a bare xpub/ypub/zpub/tpub/upub/vpub; evm and tron: the account-level xpub (m/44'/60'/0', m/44'/195'/0')",
    }),
    gap_limit: T.Optional(
      T.Integer({ minimum: 1, maximum: MAX_GAP_LIMIT, description: `How many unused addresses in a row the wallet software scans; default ${DEFAULT_GAP_LIMIT} (the same key put again keeps its own)` }),
    ),
  },
  { additionalProperties: false },
);

export type PutWalletInput = Static<typeof PutWalletBody>;

export type PutWalletDeps = { db: Db; clock: Clock; box: SecretBox; config: { networks: Record<string, NetworkConfig> } };

/**
 * Sets the account's wallet on a network. The same key again (in any of its spellings) changes only
 * `gap_limit`; a new key replaces the wallet and starts at its index 0 — or, when the account had
 * put that key on the network before, where it stopped, so no index is handed out twice. Refusals
 * store nothing, and a private key is refused before anything else is looked at, its text never
 * repeated.
 */
export async function putWallet(deps: PutWalletDeps, accountId: string, network: string, body: unknown): Promise<Result<{ wallet: WalletView }, InvalidInput>> {
  // Whatever else is wrong with the body, a private key is the one thing to say (looked for in any
  // text a key could hide in; one far longer is refused for its length, and never echoed either).
  const key = typeof body === "object" && body !== null ? (body as { key?: unknown }).key : undefined;
  if (typeof key === "string" && key.length <= 10 * MAX_KEY_LENGTH && holdsPrivateKey(key)) return invalidInput(PRIVATE_KEY_REFUSAL);
  const checked = checkBody(PutWalletBody, body);
  if (!checked.ok) return checked;
  const net = findNetwork(deps.config.networks, network);
  if (!net) return invalidInput(unknownNetwork(network));
  const parsed = parseWalletKey(net.family, checked.body.key);
  if (!parsed.ok) return invalidInput(parsed.error);
  try {
    // The key's shape was checked; this checks its point, before anything is stored.
    addressDeriver(parsed.key, net)(0);
  } catch {
    return invalidInput("key's public key is not a point of secp256k1");
  }
  const { kind, identity, fingerprint, canonical } = parsed.key;
  const gapLimit = checked.body.gap_limit;
  const nowMs = deps.clock.now();
  const wallet = await deps.db.transaction().execute(async (trx): Promise<PaymentWallet> => {
    // One PUT of the account's wallets at a time, and none beside an order taking an index.
    await lockAccount(trx, accountId);
    const active = await activeWallet(trx, accountId, network);
    if (active && active.key_id === identity) {
      if (gapLimit === undefined) return active;
      await trx.updateTable("payment_wallets").set({ gap_limit: gapLimit, updated_at: nowMs }).where("id", "=", active.id).execute();
      return { ...active, gap_limit: gapLimit, updated_at: nowMs };
    }
    if (active) await trx.updateTable("payment_wallets").set({ active: 0, updated_at: nowMs }).where("id", "=", active.id).execute();
    const before = await walletOfKey(trx, accountId, network, identity);
    if (before) {
      const back = { active: 1, gap_limit: gapLimit ?? DEFAULT_GAP_LIMIT, updated_at: nowMs };
      await trx.updateTable("payment_wallets").set(back).where("id", "=", before.id).execute();
      return { ...before, ...back };
    }
    const row: PaymentWallet = {
      id: newId("wlt"),
      account_id: accountId,
      network,
      key_id: identity,
      key_sealed: deps.box.seal(canonical),
      kind,
      fingerprint,
      gap_limit: gapLimit ?? DEFAULT_GAP_LIMIT,
      next_index: 0,
      last_paid_index: null,
      gap_notice_tail: 0,
      active: 1,
      created_at: nowMs,
      updated_at: nowMs,
    };
    await trx.insertInto("payment_wallets").values(row).execute();
    return row;
  });
  return { ok: true, wallet: walletView(wallet) };
}
