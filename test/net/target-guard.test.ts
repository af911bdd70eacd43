import { describe, expect, test } from "bun:test";
import { isNonPublicIp, parseIp } from "../../src/net/ip";
import { checkWebhookTarget, type Resolver, systemResolver, type TargetRefusal } from "../../src/net/target-guard";

/** A resolver answering from a fixed table; unknown names fail like NXDOMAIN, and every lookup is recorded. */
function tableResolver(table: Record<string, string[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string): Promise<string[]> => {
    asked.push(hostname);
    const answers = table[hostname];
    if (answers === undefined) throw new Error(`ENOTFOUND ${hostname}`);
    return answers;
  };
  return Object.assign(resolve, { asked });
}

/** The code behind each refusal sentence, so each table row checks both. */
const CODE_OF: Record<string, TargetRefusal> = {
  "url must be an absolute http(s) URL": "NOT_ABSOLUTE_HTTP",
  "url must not contain credentials": "HAS_CREDENTIALS",
  "url resolves to a private address": "PRIVATE_ADDRESS",
  "url host could not be resolved": "UNRESOLVABLE",
};

const dns = {
  "hooks.example.com": ["93.184.216.34"],
  "v6.example.com": ["2606:4700::1111"],
  "dual.example.com": ["93.184.216.34", "2606:4700::1111"],
  "internal.example.com": ["127.0.0.1"],
  "mixed.example.com": ["93.184.216.34", "10.0.0.5"],
  "mixed6.example.com": ["2606:4700::1111", "fd00:ec2::254"],
  "mapped.example.com": ["::ffff:169.254.169.254"],
  "empty.example.com": [],
  "garbage.example.com": ["not-an-ip"],
};

describe("checkWebhookTarget refuses", () => {
  test.each([
    ["ftp://hooks.example.com/x", "url must be an absolute http(s) URL"],
    ["/relative/path", "url must be an absolute http(s) URL"],
    ["hooks.example.com/x", "url must be an absolute http(s) URL"],
    ["", "url must be an absolute http(s) URL"],
    ["javascript:alert(1)", "url must be an absolute http(s) URL"],
    ["file:///etc/passwd", "url must be an absolute http(s) URL"],
    ["http://", "url must be an absolute http(s) URL"],
    ["https://user:pass@hooks.example.com/x", "url must not contain credentials"],
    ["https://user@hooks.example.com/x", "url must not contain credentials"],
    ["https://internal.example.com/x", "url resolves to a private address"],
    ["https://mixed.example.com/x", "url resolves to a private address"],
    ["https://mixed6.example.com/x", "url resolves to a private address"],
    ["https://mapped.example.com/x", "url resolves to a private address"],
    ["http://127.0.0.1:9/x", "url resolves to a private address"],
    ["http://[::1]/x", "url resolves to a private address"],
    ["http://[::ffff:127.0.0.1]/x", "url resolves to a private address"],
    ["http://169.254.169.254/latest/meta-data", "url resolves to a private address"],
    ["http://0x7f.1/x", "url resolves to a private address"],
    ["http://2130706433/x", "url resolves to a private address"],
    ["http://localhost:8080/x", "url resolves to a private address"],
    ["http://LOCALHOST./x", "url resolves to a private address"],
    ["http://api.localhost/x", "url resolves to a private address"],
    ["https://nowhere.example.com/x", "url host could not be resolved"],
    ["https://empty.example.com/x", "url host could not be resolved"],
    ["https://garbage.example.com/x", "url host could not be resolved"],
  ])("%s: %s", async (raw, reason) => {
    const result = await checkWebhookTarget(raw, { allowPrivate: false, resolve: tableResolver(dns) });
    expect(result).toEqual({ ok: false, code: CODE_OF[reason]!, error: reason });
  });
});

describe("checkWebhookTarget accepts", () => {
  test.each([
    ["https://hooks.example.com/x", "hooks.example.com", "93.184.216.34"],
    ["http://hooks.example.com:8080/x?a=1", "hooks.example.com", "93.184.216.34"],
    ["https://v6.example.com/x", "v6.example.com", "2606:4700::1111"],
    ["https://dual.example.com/x", "dual.example.com", "93.184.216.34"],
    ["https://8.8.8.8/x", "8.8.8.8", null],
    ["https://[2606:4700::1111]/x", "[2606:4700::1111]", null],
  ])("%s, to be reached at %s through %s", async (raw, hostname, address) => {
    const result = await checkWebhookTarget(raw, { allowPrivate: false, resolve: tableResolver(dns) });
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.url.hostname).toBe(hostname);
      // The checked address the sender must connect to; an IP literal has no name to pin.
      expect(result.address).toBe(address);
    }
  });
});

describe("checkWebhookTarget with allowPrivate", () => {
  test.each(["http://127.0.0.1:9/x", "http://localhost/x", "http://[::1]/x", "https://internal.example.com/x", "https://nowhere.example.com/x"])(
    "accepts %s without checking addresses",
    async (raw) => {
      const resolve = tableResolver(dns);
      const result = await checkWebhookTarget(raw, { allowPrivate: true, resolve });
      expect(result.ok).toBe(true);
      expect(resolve.asked).toEqual([]);
    },
  );

  test.each([
    ["ftp://127.0.0.1/x", "url must be an absolute http(s) URL"],
    ["/x", "url must be an absolute http(s) URL"],
    ["http://u:p@127.0.0.1/x", "url must not contain credentials"],
  ])("still refuses %s", async (raw, reason) => {
    const result = await checkWebhookTarget(raw, { allowPrivate: true, resolve: tableResolver(dns) });
    expect(result).toEqual({ ok: false, code: CODE_OF[reason]!, error: reason });
  });
});

describe("checkWebhookTarget lookups", () => {
  test.each(["http://127.0.0.1/x", "http://[::1]/x", "https://8.8.8.8/x", "http://localhost/x", "http://a.b.localhost/x"])(
    "does not consult DNS for %s",
    async (raw) => {
      const resolve = tableResolver(dns);
      await checkWebhookTarget(raw, { allowPrivate: false, resolve });
      expect(resolve.asked).toEqual([]);
    },
  );

  test("asks the resolver for the URL's hostname", async () => {
    const resolve = tableResolver(dns);
    await checkWebhookTarget("https://hooks.example.com:8443/path", { allowPrivate: false, resolve });
    expect(resolve.asked).toEqual(["hooks.example.com"]);
  });
});

describe("systemResolver", () => {
  // Only "localhost", which the hosts file answers; no other name is looked up, so no network traffic.
  test("resolves localhost to loopback addresses", async () => {
    const answers = await systemResolver("localhost");
    expect(answers.length).toBeGreaterThan(0);
    for (const answer of answers) {
      const parsed = parseIp(answer);
      expect(parsed).not.toBeNull();
      expect(isNonPublicIp(parsed!)).toBe(true);
    }
  });
});
