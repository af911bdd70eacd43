import { sha256 } from "@noble/hashes/sha2.js";
import { bech32, bech32m, createBase58check } from "@scure/base";

// Bitcoin-family addresses (Bitcoin, Litecoin, their test and regtest chains) differ only in the
// bech32 prefix and the two base58check version bytes, so one validator serves them all.

/** The address forms of one btc-family network, named as in its config table (`[networks.X]`). */
export type BtcAddressParams = { bech32_hrp: string; p2pkh_version: number; p2sh_version: number };

/** A btc-family network's address forms when its table names none: Bitcoin mainnet's (bc1…, 1…, 3…). */
export const BTC_ADDRESS_DEFAULTS: Readonly<BtcAddressParams> = Object.freeze({ bech32_hrp: "bc", p2pkh_version: 0x00, p2sh_version: 0x05 });

/** A network's address parameters; each one its table leaves out is Bitcoin mainnet's. */
export function btcAddressParams(network: Partial<BtcAddressParams>): BtcAddressParams {
  return {
    bech32_hrp: network.bech32_hrp ?? BTC_ADDRESS_DEFAULTS.bech32_hrp,
    p2pkh_version: network.p2pkh_version ?? BTC_ADDRESS_DEFAULTS.p2pkh_version,
    p2sh_version: network.p2sh_version ?? BTC_ADDRESS_DEFAULTS.p2sh_version,
  };
}

const base58check = createBase58check(sha256);

/**
 * BIP173/BIP350 with the network's prefix: v0 is bech32 with a 20-byte (P2WPKH) or 32-byte (P2WSH)
 * program; v1..16 (v1 = P2TR) are bech32m with 2..40 bytes.
 */
function isSegwitAddress(hrp: string, address: string): boolean {
  // The two checksums differ, so at most one of the decoders accepts a given string.
  const asBech32 = bech32.decodeUnsafe(address);
  const decoded = asBech32 ?? bech32m.decodeUnsafe(address);
  // The decoder reports the prefix in lower case whatever the input's case.
  if (!decoded || decoded.prefix !== hrp) return false;
  const [version, ...programWords] = decoded.words;
  if (version === undefined || version > 16) return false;
  // BIP350 ties the checksum to the version, so a string valid under the other one is refused.
  if ((version === 0) !== Boolean(asBech32)) return false;
  const program = bech32.fromWordsUnsafe(programWords);
  if (!program || program.length < 2 || program.length > 40) return false;
  return version !== 0 || program.length === 20 || program.length === 32;
}

/** P2PKH or P2SH: base58check of a version byte and a 20-byte hash. */
function isBase58Address(params: BtcAddressParams, address: string): boolean {
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    return false;
  }
  if (payload.length !== 21) return false;
  return payload[0] === params.p2pkh_version || payload[0] === params.p2sh_version;
}

/** The address in stored form (bech32 lower-cased, base58 as given), or null when it is none of the network's. */
export function normalizeBtcAddress(params: BtcAddressParams, address: string): string | null {
  // bech32 forbids mixed case (the decoder refuses it), so lower-casing is lossless.
  if (isSegwitAddress(params.bech32_hrp, address)) return address.toLowerCase();
  // Base58 is case-sensitive: its case is part of the encoding.
  return isBase58Address(params, address) ? address : null;
}

/** The forms a network accepts, in words a client can act on (the 400 of a refused address). */
export function describeBtcAddressForms(params: BtcAddressParams): string {
  return `P2PKH (version ${params.p2pkh_version}), P2SH (version ${params.p2sh_version}), or bech32/bech32m with prefix ${params.bech32_hrp}1`;
}

// hrp, the separator (the last "1"), then 6+ characters of the bech32 alphabet, in either case.
const BECH32_SHAPE = /^[a-z0-9]{1,83}1[02-9ac-hj-np-z]{6,}$/i;

/**
 * Whether a feed address, in any case, is a bech32 or bech32m string of any prefix, so it can be
 * lower-cased to match a watch. The checksum tells it from a base58 address of the same shape.
 */
export function isBech32String(address: string): boolean {
  // Most base58 addresses fail the shape; those that get past it fail the checksum, which is checked
  // here first because the decoders throw (slowly) on every string they refuse. The decoders have
  // the last word: the checksum passing is necessary, not enough.
  if (!BECH32_SHAPE.test(address)) return false;
  const lower = address.toLowerCase();
  const residue = bech32Residue(lower);
  if (residue !== BECH32_CONST && residue !== BECH32M_CONST) return false;
  return Boolean(bech32.decodeUnsafe(lower) ?? bech32m.decodeUnsafe(lower));
}

/** What BIP 173's checksum leaves of a valid bech32 string (BIP 350's of a bech32m one). */
const BECH32_CONST = 1;
const BECH32M_CONST = 0x2bc830a3;
/** BIP 173's alphabet: a data character's value is its index, looked up by character code. */
const ALPHABET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const VALUE_OF = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUE_OF[ALPHABET.charCodeAt(i)] = i;

/**
 * BIP 173's `bech32_polymod` over the expanded prefix and every data character, checksum
 * included, of a lower-case string of the bech32 shape: BECH32_CONST or BECH32M_CONST for a string
 * whose checksum holds, anything else for one whose does not. The same sum the decoders check.
 */
function bech32Residue(lower: string): number {
  const separator = lower.lastIndexOf("1");
  let chk = 1;
  for (let i = 0; i < separator; i++) chk = polymodStep(chk, lower.charCodeAt(i) >> 5);
  chk = polymodStep(chk, 0);
  for (let i = 0; i < separator; i++) chk = polymodStep(chk, lower.charCodeAt(i) & 31);
  for (let i = separator + 1; i < lower.length; i++) chk = polymodStep(chk, VALUE_OF[lower.charCodeAt(i)]);
  return chk;
}

/** One step of the checksum: shift in a 5-bit value, folding back the bits shifted out by BIP 173's generator. */
function polymodStep(chk: number, value: number): number {
  const top = chk >>> 25;
  let next = ((chk & 0x1ffffff) << 5) ^ value;
  if (top & 1) next ^= 0x3b6a57b2;
  if (top & 2) next ^= 0x26508e6d;
  if (top & 4) next ^= 0x1ea119fa;
  if (top & 8) next ^= 0x3d4233dd;
  if (top & 16) next ^= 0x2a1462b3;
  return next;
}
