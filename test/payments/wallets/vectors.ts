import { HDKey } from "@scure/bip32";
import { hdKeyToAccount, mnemonicToAccount } from "viem/accounts";

// Published test vectors the wallet tests check against, each with where it comes from.

/** The BIP-39 test phrase every wallet vector below starts from ("abandon" × 11, "about"). */
export const TEST_MNEMONIC = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

/** BIP 86's test vectors: the account xpub of m/86'/0'/0' and its first two receiving addresses. */
export const BIP86 = {
  xpub: "xpub6BgBgsespWvERF3LHQu6CnqdvfEvtMcQjYrcRzx53QJjSxarj2afYWcLteoGVky7D3UKDP9QyrLprQ3VCECoY49yfdDEHGCtMMj92pReUsQ",
  xprv: "xprv9xgqHN7yz9MwCkxsBPN5qetuNdQSUttZNKw1dcYTV4mkaAFiBVGQziHs3NRSWMkCzvgjEe3n9xV8oYywvM8at9yRqyaZVz6TYYhX98VjsUk",
  receive: ["bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr", "bc1p4qhjn9zdvkux4e44uhx8tc55attvtyu358kutcqkudyccelu0was9fqzwh"],
  firstChange: "bc1p3qkhfews2uk44qtvauqyr2ttdsw7svhkl9nkm9s9c3x4ax5h60wqwruhk7",
};

/** BIP 84's test vectors: the account zprv of m/84'/0'/0' (its zpub is derived from it) and its first two receiving addresses. */
export const BIP84 = {
  zprv: "zprvAdG4iTXWBoARxkkzNpNh8r6Qag3irQB8PzEMkAFeTRXxHpbF9z4QgEvBRmfvqWvGp42t42nvgGpNgYSJA9iefm1yYNZKEm7z6qUWCroSQnE",
  receive: ["bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", "bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g"],
};

/** BIP 49's test vector (testnet): the account upub of m/49'/1'/0' and its first receiving address. */
export const BIP49 = {
  upub: "upub5EFU65HtV5TeiSHmZZm7FUffBGy8UKeqp7vw43jYbvZPpoVsgU93oac7Wk3u6moKegAEWtGNF8DehrnHtv21XXEMYRUocHqguyjknFHYfgY",
  uprv: "uprv91G7gZkzehuMVxDJTYE6tLivdF8e4rvzSu1LFfKw3b2Qx1Aj8vpoFnHdfUZ3hmi9jsvPifmZ24RTN2KhwB8BfMLTVqaBReibyaFFcTP1s9n",
  firstReceive: "2Mww8dCYPUpKHofjgcXcBCEGmniw9CoaiD2",
};

/** BIP 380's test vectors: an extended private key and a WIF private key. */
export const BIP380 = {
  xprv: "xprvA1RpRA33e1JQ7ifknakTFpgNXPmW2YvmhqLQYMmrj4xJXXWYpDPS3xz7iAxn8L39njGVyuoseXzU6rcxFLJ8HFsTjSyQbLYnMpCqE2VbFWc",
  xpub: "xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL",
  wif: "L4rK1yDtCWekvXuE6oXD9jCYfFNV2cWRpVuPLBcCU2z8TrisoyY1",
};

/**
 * Tron, m/44'/195'/0'/0/i of the test phrase: the addresses Ian Coleman's BIP-39 tool shows and the
 * Ledger Tron app's example expects for index 0 (klever-io/trx-ledger, examples/getPublicKey.py).
 */
export const TRON_RECEIVE = ["TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH", "TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK"];

/**
 * The test phrase's root key as viem derives it, made once: each mnemonicToAccount call stretches
 * the phrase again (2,048 rounds of PBKDF2), and the tests ask for dozens of keys. Its type names
 * only Ethereum's paths; the derivation takes any.
 */
const ROOT = mnemonicToAccount(TEST_MNEMONIC, { path: "m" as `m/44'/60'/${string}` }).getHdKey();

/** viem's key at any path of the test phrase. */
export function viemKeyAt(path: string) {
  return ROOT.derive(path);
}

/** viem's account at any path of the test phrase. */
export function viemAccountAt(path: string) {
  return hdKeyToAccount(ROOT, { path: path as `m/44'/60'/${string}` });
}

/** The lower-case address viem gives account `account`, index `index` of the test phrase (m/44'/60'/account'/0/index). */
export function viemAddress(index: number, account = 0): string {
  return hdKeyToAccount(ROOT, { accountIndex: account, addressIndex: index }).address.toLowerCase();
}

/** The extended public key at `path` of the test phrase, derived by viem (its own copy of BIP 32), optionally under other version bytes. */
export function accountXpub(path: string, versions?: { public: number; private: number }): string {
  const node = viemKeyAt(path);
  if (!versions) return node.publicExtendedKey;
  return new HDKey({ versions, depth: node.depth, index: node.index, parentFingerprint: node.parentFingerprint, chainCode: node.chainCode as Uint8Array, publicKey: node.publicKey as Uint8Array })
    .publicExtendedKey;
}

/** The public extended key of an extended private one, in the same family of version bytes. */
export function neutered(prv: string, versions: { public: number; private: number }): string {
  return HDKey.fromExtendedKey(prv, versions).publicExtendedKey;
}
