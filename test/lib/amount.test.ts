import { describe, expect, test } from "bun:test";
import { formatAmount, parseAmount, parseRawInteger } from "../../src/lib/amount";

const E18 = 10n ** 18n;
const E30 = 10n ** 30n;

describe("formatAmount", () => {
  const cases: [bigint, number, string][] = [
    [1500000n, 6, "1.5"],
    [1n, 6, "0.000001"],
    [1000000n, 6, "1"],
    [10000000n, 6, "10"],
    [123456789n, 6, "123.456789"],
    [0n, 6, "0"],
    [0n, 18, "0"],
    [0n, 0, "0"],
    [E18, 18, "1"],
    [1n, 18, "0.000000000000000001"],
    [1234500000000000000n, 18, "1.2345"],
    [E30, 18, "1000000000000"],
    [E30 + 1n, 18, "1000000000000.000000000000000001"],
    [E30, 6, "1000000000000000000000000"],
    [E30, 0, "1000000000000000000000000000000"],
    [E30, 30, "1"],
    [1n, 36, "0.000000000000000000000000000000000001"],
    [42n, 0, "42"],
    [-1500000n, 6, "-1.5"],
    [-1n, 18, "-0.000000000000000001"],
    [-42n, 0, "-42"],
  ];
  test.each(cases)("formats %p with %p decimals as %p", (raw, decimals, expected) => {
    expect(formatAmount(raw, decimals)).toBe(expected);
  });

  test.each([-1, 37, 1.5, Number.NaN])("throws on decimals %p", (decimals) => {
    expect(() => formatAmount(1n, decimals)).toThrow(RangeError);
  });
});

describe("parseAmount accepts", () => {
  const cases: [string, number, bigint][] = [
    ["1", 6, 1000000n],
    ["1.5", 6, 1500000n],
    ["1.50", 6, 1500000n],
    ["0.000001", 6, 1n],
    ["123.456789", 6, 123456789n],
    ["1", 18, E18],
    ["0.000000000000000001", 18, 1n],
    ["1000000000000", 18, E30],
    ["1000000000000000000000000", 6, E30],
    ["7", 0, 7n],
    ["007", 6, 7000000n],
    ["9".repeat(78), 0, 10n ** 78n - 1n],
  ];
  test.each(cases)("%p with %p decimals as %p", (text, decimals, raw) => {
    expect(parseAmount(text, decimals)).toEqual({ ok: true, raw });
  });
});

describe("parseAmount rejects", () => {
  const cases: [string, number, string][] = [
    ["", 6, "must not be empty"],
    [" ", 6, 'must be a positive decimal string without spaces (got " ")'],
    [" 1", 6, 'must be a positive decimal string without spaces (got " 1")'],
    ["1 ", 6, 'must be a positive decimal string without spaces (got "1 ")'],
    ["1\n", 6, 'must be a positive decimal string without spaces (got "1\\n")'],
    ["1 000", 6, 'must be a positive decimal string without spaces (got "1 000")'],
    ["-1", 6, 'must be a positive decimal string without a sign (got "-1")'],
    ["+1", 6, 'must be a positive decimal string without a sign (got "+1")'],
    ["1e6", 6, 'must be a positive decimal string without an exponent (got "1e6")'],
    ["1E6", 6, 'must be a positive decimal string without an exponent (got "1E6")'],
    ["1e30", 6, 'must be a positive decimal string without an exponent (got "1e30")'],
    ["1.5e-3", 6, 'must be a positive decimal string without an exponent (got "1.5e-3")'],
    [".5", 6, 'must be a positive decimal string such as "12.5" (got ".5")'],
    ["5.", 6, 'must be a positive decimal string such as "12.5" (got "5.")'],
    [".", 6, 'must be a positive decimal string such as "12.5" (got ".")'],
    ["1.2.3", 6, 'must be a positive decimal string such as "12.5" (got "1.2.3")'],
    ["1,5", 6, 'must be a positive decimal string with a dot as the decimal point and no separators (got "1,5")'],
    ["0x10", 6, 'must be a positive decimal string, not hex (got "0x10")'],
    ["abc", 6, 'must be a positive decimal string such as "12.5" (got "abc")'],
    ["Infinity", 6, 'must be a positive decimal string such as "12.5" (got "Infinity")'],
    ["NaN", 6, 'must be a positive decimal string such as "12.5" (got "NaN")'],
    ["١", 6, 'must be a positive decimal string such as "12.5" (got "١")'], // Arabic-Indic digit one: not an ASCII digit
    ["x".repeat(100), 6, `must be a positive decimal string such as "12.5" (got "${"x".repeat(38)}…)`],
    ["1.0000001", 6, "has more than 6 fractional digits"],
    ["0.0000000000000000001", 18, "has more than 18 fractional digits"],
    ["1.0", 0, "has more than 0 fractional digits"],
    ["1".repeat(79), 18, "has more than 78 integer digits"],
    ["0", 6, "must be greater than zero"],
    ["0.000000", 6, "must be greater than zero"],
    ["000", 18, "must be greater than zero"],
  ];
  test.each(cases)("%p with %p decimals: %p", (text, decimals, reason) => {
    expect(parseAmount(text, decimals)).toEqual({ ok: false, code: "INVALID_INPUT", error: `amount ${reason}` });
  });

  test("throws on decimals outside 0..36, a caller bug rather than client input", () => {
    expect(() => parseAmount("1", 37)).toThrow(RangeError);
  });
});

describe("parseAmount then formatAmount round-trips", () => {
  const cases: [string, number, string][] = [
    ["1", 6, "1"],
    ["1.5", 6, "1.5"],
    ["1.50", 6, "1.5"],
    ["0.000001", 6, "0.000001"],
    ["007", 6, "7"],
    ["0.000000000000000001", 18, "0.000000000000000001"],
    ["1234.5678", 18, "1234.5678"],
    ["1000000000000", 18, "1000000000000"],
    ["1000000000000.000000000000000001", 18, "1000000000000.000000000000000001"],
    ["9".repeat(78), 18, "9".repeat(78)],
  ];
  test.each(cases)("%p with %p decimals formats back as %p", (text, decimals, expected) => {
    const parsed = parseAmount(text, decimals);
    if (!parsed.ok) throw new Error(`unexpected rejection: ${parsed.error}`);
    expect(formatAmount(parsed.raw, decimals)).toBe(expected);
  });
});

describe("parseRawInteger", () => {
  const accepted: [string, bigint][] = [
    ["0", 0n],
    ["1", 1n],
    ["1000", 1000n],
    ["1000000000000000000", E18],
    ["1" + "0".repeat(30), E30],
    ["9".repeat(78), 10n ** 78n - 1n],
  ];
  test.each(accepted)("parses %p as %p", (text, raw) => {
    expect(parseRawInteger(text)).toBe(raw);
  });

  test.each(["", " ", "01", "00", "-1", "+1", "1.0", "1e3", "0x10", " 1", "1 ", "1\n", "abc", "1".repeat(79)])(
    "rejects %p",
    (text) => {
      expect(parseRawInteger(text)).toBeNull();
    },
  );
});
