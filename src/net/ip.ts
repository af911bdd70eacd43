/** An IP address as a number; v4-mapped v6 (::ffff:1.2.3.4) is normalized to version 4. */
export type ParsedIp = { version: 4 | 6; value: bigint };

/** A network prefix; `network` always has its host bits cleared. */
export type Cidr = { version: 4 | 6; network: bigint; prefix: number };

const BITS = { 4: 32, 6: 128 } as const;
const V4_MAPPED = 0xffffn << 32n;
const OCTET = /^(0|[1-9]\d{0,2})$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/i;

/** Parses an IPv4 dotted quad or an IPv6 address (with ::, a v4 tail, [brackets] or a %zone); null when malformed. */
export function parseIp(text: string): ParsedIp | null {
  let body = text;
  if (body.startsWith("[") && body.endsWith("]")) body = body.slice(1, -1);
  if (!body.includes(":")) {
    // Brackets and zone ids only exist for v6; a bracketed v4 is not a valid literal.
    if (body !== text) return null;
    const value = parseV4(body);
    return value === null ? null : { version: 4, value };
  }
  const zone = body.indexOf("%");
  if (zone !== -1) {
    if (zone === body.length - 1) return null;
    body = body.slice(0, zone);
  }
  const value = parseV6(body);
  if (value === null) return null;
  // Fold v4-mapped addresses into v4 so a dual-stack socket's "::ffff:10.0.0.1" classifies as 10.0.0.1.
  if (value >> 32n === 0xffffn) return { version: 4, value: value & 0xffffffffn };
  return { version: 6, value };
}

/** Parses "10.0.0.0/8", "2001:db8::/32" or a bare IP (a single-address prefix); host bits are masked off. */
export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf("/");
  const ipText = slash === -1 ? text : text.slice(0, slash);
  const ip = parseIp(ipText);
  if (ip === null) return null;
  let prefix: number = BITS[ip.version];
  if (slash !== -1) {
    const prefixText = text.slice(slash + 1);
    if (!OCTET.test(prefixText)) return null;
    prefix = Number(prefixText);
    // parseIp folded a mapped address to v4, so a prefix inside ::ffff:0:0/96 is counted in v4 bits;
    // a wider one is a plain v6 network that merely starts with a mapped-looking address.
    if (ipText.includes(":") && ip.version === 4) {
      if (prefix > 128) return null;
      if (prefix < 96) return { version: 6, network: maskNetwork(V4_MAPPED | ip.value, prefix, 128), prefix };
      prefix -= 96;
    }
    if (prefix > BITS[ip.version]) return null;
  }
  return { version: ip.version, network: maskNetwork(ip.value, prefix, BITS[ip.version]), prefix };
}

/** True when the address lies inside the prefix; families never mix (0.0.0.0/0 holds no v6, ::/0 no v4). */
export function cidrContains(cidr: Cidr, ip: ParsedIp): boolean {
  if (cidr.version !== ip.version) return false;
  return maskNetwork(ip.value, cidr.prefix, BITS[ip.version]) === cidr.network;
}

const V4_NON_PUBLIC = cidrs(
  "0.0.0.0/8", // "this network", includes the unspecified address
  "10.0.0.0/8",
  "100.64.0.0/10", // carrier-grade NAT
  "127.0.0.0/8",
  "169.254.0.0/16", // link-local, includes cloud metadata 169.254.169.254
  "172.16.0.0/12",
  "192.0.0.0/24", // IETF protocol assignments
  "192.0.2.0/24", // TEST-NET-1
  "192.168.0.0/16",
  "198.18.0.0/15", // benchmarking
  "198.51.100.0/24", // TEST-NET-2
  "203.0.113.0/24", // TEST-NET-3
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved, includes broadcast 255.255.255.255
);

// Only 2000::/3 is globally routed unicast; everything outside it (::, ::1, ULA fc00::/7,
// link-local fe80::/10, multicast ff00::/8, v4-compatible ::/96, ...) is refused by default.
const V6_GLOBAL_UNICAST = cidrs("2000::/3")[0]!;
const V6_NON_PUBLIC_INSIDE_GLOBAL = cidrs(
  "2001::/32", // Teredo: tunnels to an arbitrary (obfuscated) v4 address
  "2001:2::/48", // benchmarking
  "2001:10::/28", // deprecated ORCHID
  "2001:db8::/32", // documentation
  "3fff::/20", // documentation (RFC 9637)
);
// These prefixes carry a v4 address; they are as public as the v4 inside them.
const V6_EMBEDDING_V4: { cidr: Cidr; extract: (value: bigint) => bigint }[] = [
  { cidr: cidrs("64:ff9b::/96")[0]!, extract: (v) => v & 0xffffffffn }, // NAT64
  { cidr: cidrs("2002::/16")[0]!, extract: (v) => (v >> 80n) & 0xffffffffn }, // 6to4
];
// Already inside the ranges above; listed so narrowing a range can never unblock cloud metadata.
const METADATA = ["169.254.169.254", "fd00:ec2::254"].map((text) => parseIp(text)!);

/** True when the address is not publicly routable: loopback, private (RFC1918), link-local, CGNAT 100.64/10, unspecified, multicast, broadcast, benchmark 198.18/15, documentation ranges, 0.0.0.0/8, 240/4, IPv6 ::1, ::, fc00::/7 (ULA), fe80::/10, ff00::/8, 64:ff9b::/96 NAT64 with a private v4 inside, 2001:db8::/32, metadata 169.254.169.254 and fd00:ec2::254. */
export function isNonPublicIp(ip: ParsedIp): boolean {
  if (METADATA.some((m) => m.version === ip.version && m.value === ip.value)) return true;
  if (ip.version === 4) return V4_NON_PUBLIC.some((cidr) => cidrContains(cidr, ip));
  // A hand-built v6 value may still be v4-mapped; judge it by the v4 inside.
  if (ip.value >> 32n === 0xffffn) return isNonPublicIp({ version: 4, value: ip.value & 0xffffffffn });
  for (const { cidr, extract } of V6_EMBEDDING_V4) {
    if (cidrContains(cidr, ip)) return isNonPublicIp({ version: 4, value: extract(ip.value) });
  }
  if (!cidrContains(V6_GLOBAL_UNICAST, ip)) return true;
  return V6_NON_PUBLIC_INSIDE_GLOBAL.some((cidr) => cidrContains(cidr, ip));
}

function parseV4(text: string): bigint | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    // Leading zeros are refused: inet_aton reads "010" as octal 8, so they are ambiguous.
    if (!OCTET.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = (value << 8n) | BigInt(octet);
  }
  return value;
}

function parseV6(text: string): bigint | null {
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const compressed = halves.length === 2;
  // A dotted v4 tail may only end the whole address, never precede "::".
  const head = toGroups(halves[0]!, !compressed);
  const tail = compressed ? toGroups(halves[1]!, true) : [];
  if (head === null || tail === null) return null;
  const written = head.length + tail.length;
  // "::" stands for at least one zero group, so a compressed address writes at most seven.
  if (compressed ? written > 7 : written !== 8) return null;
  const groups = [...head, ...new Array<number>(8 - written).fill(0), ...tail];
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(group), 0n);
}

function toGroups(text: string, mayEndInV4: boolean): number[] | null {
  if (text === "") return [];
  const parts = text.split(":");
  const groups: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (mayEndInV4 && i === parts.length - 1 && part.includes(".")) {
      const v4 = parseV4(part);
      if (v4 === null) return null;
      groups.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
    } else if (HEX_GROUP.test(part)) {
      groups.push(parseInt(part, 16));
    } else {
      return null;
    }
  }
  return groups;
}

function maskNetwork(value: bigint, prefix: number, bits: number): bigint {
  const hostBits = BigInt(bits - prefix);
  return (value >> hostBits) << hostBits;
}

function cidrs(...texts: string[]): Cidr[] {
  return texts.map((text) => {
    const cidr = parseCidr(text);
    // Only reachable through a typo in the tables above, so failing at import is right.
    if (cidr === null) throw new Error(`invalid built-in CIDR ${text}`);
    return cidr;
  });
}
