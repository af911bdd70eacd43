import { type InvalidInput, invalidInput, type Result } from "./error-codes.ts";

// Decimal amounts as strings over bigint smallest units. No Number ever touches a money value:
// 18-decimal tokens lose precision in a double long before realistic balances.

/** Most decimals any supported asset uses; bounds the work done per amount. */
export const MAX_DECIMALS = 36;

// uint256 max (2^256 - 1) has 78 decimal digits, so no on-chain value needs more.
// The cap also bounds the input a client can make us turn into a bigint.
const MAX_DIGITS = 78;

const DECIMAL_SHAPE = /^([0-9]+)(?:\.([0-9]+))?$/;
const RAW_INTEGER_SHAPE = /^(0|[1-9][0-9]*)$/;

// A bad `decimals` is a programming or config-validation bug, not a client mistake,
// so it throws instead of coming back as a value.
function assertDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > MAX_DECIMALS) {
    throw new RangeError(`decimals must be an integer in 0..${MAX_DECIMALS}, got ${decimals}`);
  }
}

/** Formats an integer amount in the smallest unit as a decimal string: formatAmount(1500000n, 6) === "1.5"; formatAmount(0n, 18) === "0"; formatAmount(10n**18n, 18) === "1"; no trailing zeros, no trailing dot, negative gets a leading "-". decimals 0..36. */
export function formatAmount(raw: bigint, decimals: number): string {
  assertDecimals(decimals);
  const sign = raw < 0n ? "-" : "";
  const digits = (raw < 0n ? -raw : raw).toString();
  if (decimals === 0) return sign + digits;
  // Pad so there is always at least one integer digit ("0.000001", not ".000001").
  const padded = digits.padStart(decimals + 1, "0");
  const integer = padded.slice(0, -decimals);
  const fraction = padded.slice(-decimals).replace(/0+$/, "");
  return sign + (fraction === "" ? integer : `${integer}.${fraction}`);
}

export type ParsedAmount = Result<{ raw: bigint }, InvalidInput>;

/**
 * Parses a positive decimal string ("1", "1.50", "0.000001") to the smallest unit. Rejects: empty, whitespace, signs, exponent, leading/trailing dot (".5", "5."), more fractional digits than `decimals`, zero, non-digits, more than 78 integer digits.
 * A refusal's sentence starts with `field` and says why: `amount has more than 6 fractional digits`,
 * `amount must be a positive decimal string without an exponent (got "1e30")`.
 */
export function parseAmount(text: string, decimals: number, field = "amount"): ParsedAmount {
  assertDecimals(decimals);
  const refuse = (reason: string) => invalidInput(`${field} ${reason}`);
  if (text === "") return refuse("must not be empty");
  const match = DECIMAL_SHAPE.exec(text);
  if (match === null) return invalidInput(describeAmountMiss(field, text, "decimal"));
  const integer = match[1] ?? "";
  const fraction = match[2] ?? "";
  if (integer.length > MAX_DIGITS) return refuse(`has more than ${MAX_DIGITS} integer digits`);
  // Counted literally: "1.50" with 1 decimal is rejected even though the value fits,
  // so the client learns the asset's precision instead of having digits silently dropped.
  if (fraction.length > decimals) return refuse(`has more than ${decimals} fractional digits`);
  const raw = BigInt(integer + fraction.padEnd(decimals, "0"));
  if (raw === 0n) return refuse("must be greater than zero");
  return { ok: true, raw };
}

/** Parses a non-negative integer string in the smallest unit ("0", "1000"), as sent by the ingest feed; null when not /^(0|[1-9][0-9]*)$/ or longer than 78 digits. */
export function parseRawInteger(text: string): bigint | null {
  if (text.length > MAX_DIGITS || !RAW_INTEGER_SHAPE.test(text)) return null;
  return BigInt(text);
}

/** Longest piece of a refused value a refusal quotes back. */
const QUOTED_MAX = 40;

/** A refused value as the refusal quotes it: JSON (a string quoted, a number bare), cut to QUOTED_MAX characters. */
function quoted(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > QUOTED_MAX ? `${text.slice(0, QUOTED_MAX - 1)}…` : text;
}

/**
 * What keeps a text from being plain decimal digits, when a familiar notation explains it: the
 * words that follow "must be … string" (`without an exponent`, `, not hex`); null when nothing in
 * particular does.
 */
function notationMiss(text: string, kind: AmountKind): string | null {
  if (/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?[0-9]+$/.test(text)) return "without an exponent";
  if (/^[+-]/.test(text)) return "without a sign";
  if (/^0[xX][0-9a-fA-F]*$/.test(text)) return ", not hex";
  if (/\s/.test(text)) return "without spaces";
  if (/^[0-9]+(,[0-9]+)+$/.test(text)) return kind === "raw" ? "without separators" : "with a dot as the decimal point and no separators";
  if (kind === "raw" && /^[0-9]*\.[0-9]*$/.test(text) && text !== ".") return "without a decimal point";
  if (kind === "raw" && /^0[0-9]+$/.test(text)) return "without leading zeros";
  if (kind === "raw" && /^[0-9]+$/.test(text)) return `of at most ${MAX_DIGITS} digits`;
  return null;
}

/**
 * `decimal`: a positive amount in whole units, as a client gives it ("12.5"); `raw`: a
 * non-negative integer in the smallest unit, as a feed sends values ("1000000").
 */
export type AmountKind = "decimal" | "raw";

/**
 * Why `value` is no amount of `kind`, naming `field` and quoting the value: `amount must be a
 * positive decimal string without an exponent (got "1e30")`. A JSON number is refused whatever its
 * value, since a double cannot carry every digit of an amount (2^53 is about 9 × 10^15, and one
 * ether is 10^18 wei), so no amount is ever read through one.
 */
export function describeAmountMiss(field: string, value: unknown, kind: AmountKind): string {
  const what = kind === "decimal" ? "a positive decimal string" : "an integer string in the smallest unit";
  const example = kind === "decimal" ? '"12.5"' : '"1000000"';
  if (typeof value === "number") return `${field} must be ${what} such as ${example}, not a JSON number (got ${quoted(value)}): a number cannot carry every digit of an amount`;
  if (typeof value !== "string") return `${field} must be ${what} such as ${example} (got ${quoted(value)})`;
  const why = notationMiss(value, kind);
  const reason = why === null ? ` such as ${example}` : why.startsWith(",") ? why : ` ${why}`;
  return `${field} must be ${what}${reason} (got ${quoted(value)})`;
}
