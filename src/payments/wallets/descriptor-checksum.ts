// The output-descriptor checksum of BIP 380: eight characters after `#`, a BCH code over the
// descriptor's characters (a polymod, like bech32's, over three groups of 32 characters). It
// guards against typing mistakes, not forgery, so it is small arithmetic, not cryptography.

const INPUT_CHARSET = "0123456789()[],'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ";
const CHECKSUM_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const GENERATOR = [0xf5dee51989n, 0xa9fdca3312n, 0x1bab10e32dn, 0x3706b1677an, 0x644d626ffdn];

function polymod(symbols: readonly number[]): bigint {
  let chk = 1n;
  for (const value of symbols) {
    const top = chk >> 35n;
    chk = ((chk & 0x7ffffffffn) << 5n) ^ BigInt(value);
    for (let i = 0; i < 5; i++) if ((top >> BigInt(i)) & 1n) chk ^= GENERATOR[i];
  }
  return chk;
}

/** The symbols the checksum is computed over; null when a character is outside the descriptor character set. */
function expand(text: string): number[] | null {
  const symbols: number[] = [];
  let groups: number[] = [];
  for (const c of text) {
    const v = INPUT_CHARSET.indexOf(c);
    if (v < 0) return null;
    symbols.push(v & 31);
    groups.push(v >> 5);
    if (groups.length === 3) {
      symbols.push(groups[0] * 9 + groups[1] * 3 + groups[2]);
      groups = [];
    }
  }
  if (groups.length === 1) symbols.push(groups[0]);
  else if (groups.length === 2) symbols.push(groups[0] * 3 + groups[1]);
  return symbols;
}

/** The eight-character checksum of a descriptor (without its `#…`); null when it holds a character descriptors never use. */
export function descriptorChecksum(descriptor: string): string | null {
  const symbols = expand(descriptor);
  if (symbols === null) return null;
  const checksum = polymod([...symbols, 0, 0, 0, 0, 0, 0, 0, 0]) ^ 1n;
  let out = "";
  for (let i = 0; i < 8; i++) out += CHECKSUM_CHARSET[Number((checksum >> BigInt(5 * (7 - i))) & 31n)];
  return out;
}

/** What checking a descriptor's `#checksum` found: the descriptor without it, or why it is refused. */
export type ChecksumCheck = { ok: true; descriptor: string; checked: boolean } | { ok: false; error: string };

/**
 * Splits `text` at its `#` and verifies the checksum when one is given (`checked`); a descriptor
 * without `#` passes unchecked, as Bitcoin Core's parser lets it.
 */
export function verifyDescriptorChecksum(text: string): ChecksumCheck {
  const at = text.indexOf("#");
  if (at < 0) return { ok: true, descriptor: text, checked: false };
  const descriptor = text.slice(0, at);
  const given = text.slice(at + 1);
  if (given.length !== 8) return { ok: false, error: `the descriptor checksum after # must be 8 characters, not ${given.length}` };
  const expected = descriptorChecksum(descriptor);
  if (expected === null) return { ok: false, error: "the descriptor holds a character descriptors never use" };
  if (given !== expected) return { ok: false, error: "the descriptor checksum does not match: the descriptor was changed or mistyped" };
  return { ok: true, descriptor, checked: true };
}
