import { describe, expect, test } from "bun:test";
import { parseConfig } from "../../src/config/load.ts";
import { publicBaseUrl } from "../../src/net/public-url.ts";

// The checkout pages' configuration (docs/checkout.md, docs/config.md): where payers reach the
// daemon, each btc network's payment URI scheme, and the pages' limits.

const refusal = (raw: unknown) => {
  const r = parseConfig(raw, "c.toml");
  if (r.ok) throw new Error("expected a refusal");
  return r.error;
};

describe("checkout configuration", () => {
  test("defaults: no public_url, 20 requests a second per address, 10 streams per address, 1000 in all", () => {
    const r = parseConfig({}, null);
    if (!r.ok) throw new Error(r.error);
    expect(r.config.server.public_url).toBe("");
    expect(r.config.checkout).toEqual({ per_ip_rps: 20, max_streams_per_ip: 10, max_streams: 1000 });
  });

  test.each([
    ["pay.example.com", "must be an absolute http(s) URL, e.g. \"https://pay.example.com\""],
    ["ftp://pay.example.com", "must be an absolute http(s) URL, e.g. \"https://pay.example.com\""],
    ["https://user:pw@pay.example.com", "must not carry a user name or password (payers would see them)"],
    ["https://pay.example.com/?x=1", "must not have a query or a fragment (links are made by adding a path)"],
    ["https://pay.example.com/#top", "must not have a query or a fragment (links are made by adding a path)"],
  ])("server.public_url %p is refused", (url, why) => {
    expect(refusal({ server: { public_url: url } })).toBe(`c.toml: config key \`server.public_url\`: ${why}`);
  });

  test("uri_scheme belongs to btc networks, and never names a browser's own scheme", () => {
    expect(refusal({ networks: { eth: { uri_scheme: "ethereum" } } })).toBe("c.toml: config key `networks.eth.uri_scheme`: only btc networks have a BIP-21 payment URI");
    expect(refusal({ networks: { btc: { uri_scheme: "javascript" } } })).toBe("c.toml: config key `networks.btc.uri_scheme`: javascript is a browser's own scheme, not a wallet's");
    expect(refusal({ networks: { btc: { uri_scheme: "Bit coin" } } })).toMatch(/networks\.btc\.uri_scheme`: must be a URI scheme/);
    const ok = parseConfig({ networks: { ltc: { family: "btc", uri_scheme: "litecoin", symbol: "LTC" } } }, null);
    expect(ok.ok && [ok.config.networks.ltc.uri_scheme, ok.config.networks.ltc.symbol]).toEqual(["litecoin", "LTC"]);
  });

  test("the public address: public_url as given (without a trailing slash), else the listening address", () => {
    expect(publicBaseUrl({ host: "127.0.0.1", port: 8787, public_url: "https://pay.example.com/shop/" })).toBe("https://pay.example.com/shop");
    expect(publicBaseUrl({ host: "127.0.0.1", port: 0, public_url: "" }, 40123)).toBe("http://127.0.0.1:40123");
    expect(publicBaseUrl({ host: "0.0.0.0", port: 8787, public_url: "" })).toBe("http://localhost:8787");
    expect(publicBaseUrl({ host: "::1", port: 8787, public_url: "" })).toBe("http://[::1]:8787");
  });
});
