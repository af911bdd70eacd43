import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { HDKey } from "@scure/bip32";
import { p2pkh, p2sh, p2tr, p2wpkh } from "@scure/btc-signer";
import type { NetworkConfig } from "../../config/schema.ts";
import { btcAddressParams } from "../../chain/address/btc.ts";
import { tronAddressOf } from "../../chain/address/tron.ts";
import { decodeExtendedKey } from "./extended-key.ts";
import type { WalletKey } from "./wallet-key.ts";

/** A network's address parameters as @scure/btc-signer takes them. */
type BtcNetwork = NonNullable<Parameters<typeof p2pkh>[1]>;

// A wallet's address at index i (docs/payments.md): the key's receiving branch derived with
// @scure/bip32 (public derivation only: unhardened steps), the child's public key made into the
// network's address with @scure/btc-signer (btc family, with the network's bech32 prefix and
// version bytes) or keccak-256 (evm, and tron's 0x41 form). No curve arithmetic is written here.

/** Derives a wallet's addresses; made once per wallet key, so the branch is derived once. */
export type AddressDeriver = (index: number) => string;

/** The highest index a wallet hands out: children from 2³¹ on are hardened, which a public key cannot derive. */
export const MAX_INDEX = 0x7fffffff;

/**
 * The deriver of `key`'s addresses on `network`. Throws when the key's point is not on the curve
 * (parseWalletKey checks only its shape); a new wallet is checked by deriving its index 0.
 */
export function addressDeriver(key: WalletKey, network: Pick<NetworkConfig, "family" | "bech32_hrp" | "p2pkh_version" | "p2sh_version">): AddressDeriver {
  const bytes = decodeExtendedKey(key.xpub);
  if (!bytes) throw new Error("wallet key does not decode");
  let node = HDKey.fromExtendedKey(key.xpub, { public: bytes.version, private: 0 });
  for (const step of key.branch) node = node.deriveChild(step);
  const branch = node;
  const childKey = (index: number): Uint8Array => {
    if (!Number.isInteger(index) || index < 0 || index > MAX_INDEX) throw new RangeError(`index ${index} is outside 0..${MAX_INDEX}`);
    const publicKey = branch.deriveChild(index).publicKey;
    if (!publicKey) throw new Error("derived key has no public key");
    return publicKey;
  };
  if (key.kind === "bip44") {
    const accountId = (index: number) => keccak_256(secp256k1.Point.fromBytes(childKey(index)).toBytes(false).subarray(1)).subarray(12);
    if (network.family === "tron") return (index) => tronAddressOf(accountId(index));
    return (index) => `0x${Buffer.from(accountId(index)).toString("hex")}`;
  }
  const params = btcAddressParams(network);
  // The WIF byte is never used: nothing here encodes a private key.
  const net: BtcNetwork = { bech32: params.bech32_hrp, pubKeyHash: params.p2pkh_version, scriptHash: params.p2sh_version, wif: 0x80 };
  const encode = BTC_ENCODERS[key.kind];
  return (index) => encode(childKey(index), net);
}

const BTC_ENCODERS: Record<Exclude<WalletKey["kind"], "bip44">, (publicKey: Uint8Array, net: BtcNetwork) => string> = {
  pkh: (pub, net) => p2pkh(pub, net).address as string,
  "sh-wpkh": (pub, net) => p2sh(p2wpkh(pub, net), net).address as string,
  // bech32 is written lower-case: the form addresses are stored and matched in.
  wpkh: (pub, net) => p2wpkh(pub, net).address as string,
  // BIP 86: the x-only internal key, tweaked with no script tree.
  tr: (pub, net) => p2tr(pub.subarray(1), undefined, net).address as string,
};
