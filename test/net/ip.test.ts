import { describe, expect, test } from "bun:test";
import { cidrContains, isNonPublicIp, parseCidr, parseIp, type ParsedIp } from "../../src/net/ip";

function ip(text: string): ParsedIp {
  const parsed = parseIp(text);
  if (parsed === null) throw new Error(`test fixture ${text} does not parse`);
  return parsed;
}

describe("parseIp", () => {
  test.each([
    ["0.0.0.0", 4, 0n],
    ["1.2.3.4", 4, 0x01020304n],
    ["255.255.255.255", 4, 0xffffffffn],
    ["::", 6, 0n],
    ["::1", 6, 1n],
    ["2001:db8::1", 6, 0x20010db8000000000000000000000001n],
    ["2001:DB8:0:0:0:0:0:1", 6, 0x20010db8000000000000000000000001n],
    ["1:2:3:4:5:6:7::", 6, 0x00010002000300040005000600070000n],
    ["::2:3:4:5:6:7:8", 6, 0x00000002000300040005000600070008n],
    ["1:2:3:4:5:6:1.2.3.4", 6, 0x00010002000300040005000601020304n],
    ["64:ff9b::10.0.0.1", 6, 0x0064ff9b00000000000000000a000001n],
    ["[::1]", 6, 1n],
    ["fe80::1%eth0", 6, 0xfe800000000000000000000000000001n],
    ["[fe80::1%eth0]", 6, 0xfe800000000000000000000000000001n],
  ] as const)("parses %s as v%d", (text, version, value) => {
    expect(parseIp(text)).toEqual({ version, value });
  });

  test.each([
    ["::ffff:127.0.0.1", 0x7f000001n],
    ["::ffff:7f00:1", 0x7f000001n],
    ["[::FFFF:10.1.2.3]", 0x0a010203n],
  ])("normalizes v4-mapped %s to v4", (text, value) => {
    expect(parseIp(text)).toEqual({ version: 4, value });
  });

  test.each([
    "",
    "256.0.0.1",
    "1.2.3",
    "1.2.3.4.5",
    "1.2.3.-4",
    "01.2.3.4",
    "1.2.3.4 ",
    "0x7f.0.0.1",
    "[1.2.3.4]",
    "1.2.3.4%eth0",
    "1:2:3:4:5:6:7:8:9",
    "1:2:3:4:5:6:7",
    "1:2:3:4:5:6:7:8::",
    "1::2::3",
    ":::",
    "1:::2",
    ":1:2:3:4:5:6:7",
    "1:2:3:4:5:6:7:",
    "12345::1",
    "g::1",
    "1.2.3.4::",
    "1.2.3.4:1::",
    "::1.2.3.256",
    "1:2:3:4:5:6:7:1.2.3.4",
    "fe80::1%",
    "[::1",
  ])("rejects %p", (text) => {
    expect(parseIp(text)).toBeNull();
  });
});

describe("parseCidr", () => {
  test.each([
    ["10.0.0.0/8", { version: 4, network: 0x0a000000n, prefix: 8 }],
    ["10.9.8.7/8", { version: 4, network: 0x0a000000n, prefix: 8 }],
    ["0.0.0.0/0", { version: 4, network: 0n, prefix: 0 }],
    ["192.168.1.1", { version: 4, network: 0xc0a80101n, prefix: 32 }],
    ["2001:db8:ffff::1/32", { version: 6, network: 0x20010db8n << 96n, prefix: 32 }],
    ["::1", { version: 6, network: 1n, prefix: 128 }],
    ["::ffff:10.0.0.0/104", { version: 4, network: 0x0a000000n, prefix: 8 }],
    ["::ffff:10.0.0.0/64", { version: 6, network: 0n, prefix: 64 }],
  ] as const)("parses %s", (text, cidr) => {
    expect(parseCidr(text)).toEqual(cidr);
  });

  test.each(["10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/08", "10.0.0.0/-1", "10.0.0.0/8/8", "300.0.0.0/8", "::ffff:10.0.0.0/129"])(
    "rejects %p",
    (text) => {
      expect(parseCidr(text)).toBeNull();
    },
  );
});

describe("cidrContains", () => {
  test.each([
    ["10.0.0.0/8", "10.255.255.255", true],
    ["10.0.0.0/8", "11.0.0.0", false],
    ["10.0.0.0/8", "9.255.255.255", false],
    ["172.16.0.0/12", "172.31.255.255", true],
    ["172.16.0.0/12", "172.32.0.0", false],
    ["203.0.113.7", "203.0.113.7", true],
    ["203.0.113.7", "203.0.113.8", false],
    ["0.0.0.0/0", "8.8.8.8", true],
    ["0.0.0.0/0", "::1", false],
    ["::/0", "8.8.8.8", false],
    ["2001:db8::/32", "2001:db8:ffff::1", true],
    ["2001:db8::/32", "2001:db9::1", false],
    ["fe80::/10", "febf::1", true],
    ["fe80::/10", "fec0::1", false],
    ["10.0.0.0/8", "::ffff:10.1.2.3", true],
    ["::ffff:192.168.0.0/112", "192.168.3.4", true],
    ["::ffff:192.168.0.0/112", "::ffff:192.169.0.1", false],
  ])("%s contains %s: %p", (cidrText, ipText, expected) => {
    const cidr = parseCidr(cidrText);
    expect(cidr).not.toBeNull();
    expect(cidrContains(cidr!, ip(ipText))).toBe(expected);
  });
});

describe("isNonPublicIp", () => {
  test.each([
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "172.15.255.255",
    "100.63.255.255",
    "100.128.0.0",
    "192.169.0.1",
    "198.20.0.1",
    "223.255.255.255",
    "::ffff:8.8.8.8",
    "2606:4700::1111",
    "2a00:1450:4001:80b::200e",
    "64:ff9b::8.8.8.8",
    "2002:808:808::1",
  ])("treats %s as public", (text) => {
    expect(isNonPublicIp(ip(text))).toBe(false);
  });

  test.each([
    "0.0.0.0",
    "0.1.2.3",
    "10.1.2.3",
    "100.64.0.1",
    "100.127.255.255",
    "127.0.0.1",
    "127.255.255.254",
    "169.254.169.254",
    "169.254.1.1",
    "172.16.0.1",
    "172.31.255.255",
    "192.0.0.8",
    "192.0.2.1",
    "192.168.1.1",
    "198.18.0.1",
    "198.19.255.255",
    "198.51.100.1",
    "203.0.113.1",
    "224.0.0.1",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "::127.0.0.1",
    "::ffff:127.0.0.1",
    "::ffff:169.254.169.254",
    "fc00::1",
    "fd12::1",
    "fd00:ec2::254",
    "fe80::1",
    "fe80::1%eth0",
    "ff02::1",
    "64:ff9b::127.0.0.1",
    "64:ff9b::10.0.0.1",
    "64:ff9b:1::1",
    "2001:db8::1",
    "2001::1",
    "2002:7f00:1::1",
    "3fff::1",
    "100::1",
  ])("treats %s as non-public", (text) => {
    expect(isNonPublicIp(ip(text))).toBe(true);
  });

  test("judges a hand-built v4-mapped v6 value by the v4 inside", () => {
    expect(isNonPublicIp({ version: 6, value: (0xffffn << 32n) | 0x7f000001n })).toBe(true);
    expect(isNonPublicIp({ version: 6, value: (0xffffn << 32n) | 0x08080808n })).toBe(false);
  });
});
