import type { NetworkConfig } from "../../config/schema.ts";
import type { PaymentWallet } from "../../db/schema.ts";
import type { SecretBox } from "../../secrets/secret-box.ts";
import { type AddressDeriver, addressDeriver } from "./derive-address.ts";
import { parseWalletKey } from "./wallet-key.ts";

/**
 * The derivers of the wallets orders are made from, each opened once: opening a wallet (unsealing
 * its key, reading it, deriving its receiving branch) costs about as much CPU as two addresses, so
 * an order pays only for its own child key. One per process, built by the composition root;
 * nothing in it outlives the process.
 */
export type WalletDerivers = { of(wallet: Pick<PaymentWallet, "id" | "key_sealed">, network: NetworkConfig): AddressDeriver };

/** Derivers of up to `max` wallets; a full cache starts again (simpler than an LRU, and a wallet reopens in a millisecond). */
export function createWalletDerivers(box: SecretBox, max = 1000): WalletDerivers {
  // By the sealed text too: a wallet row whose key changed is a new entry.
  const open = new Map<string, AddressDeriver>();
  return {
    of(wallet, network) {
      const id = `${wallet.id}\u0000${wallet.key_sealed}`;
      const known = open.get(id);
      if (known) return known;
      const parsed = parseWalletKey(network.family, box.open(wallet.key_sealed));
      // Stored keys were parsed when they were put; one that no longer parses is a broken database.
      if (!parsed.ok) throw new Error(`stored key of wallet ${wallet.id} does not parse`);
      const deriver = addressDeriver(parsed.key, network);
      if (open.size >= max) open.clear();
      open.set(id, deriver);
      return deriver;
    },
  };
}
