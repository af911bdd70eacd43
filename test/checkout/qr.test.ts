import { describe, expect, test } from "bun:test";
import { createQrCache, QUIET_ZONE, qrMatrix, qrSvg } from "../../src/checkout/qr.ts";
import { readQrSvg } from "./support.ts";

// The QR code a payer scans is exactly the payment URI: drawn by the page's SVG, read back by
// @paulmillr/qr's decoder from pixels.
const URIS = [
  "bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=0.00012345",
  "litecoin:rltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kgmn4n9?amount=84000000",
  "ethereum:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed@1?value=1500000000000000000",
  "ethereum:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed?value=115792089237316195423570985008687907853269984665640564039457584007913129639935",
  "ethereum:0xdac17f958d2ee523a2206206994597c13d831ec7@137/transfer?address=0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed&uint256=25000000",
  "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
  "solana:9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM?amount=0.000000001&spl-token=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
];

describe("the checkout page's QR codes", () => {
  test.each(URIS)("%s reads back exactly", (uri) => {
    expect(readQrSvg(qrSvg(uri, "payment request"))).toBe(uri);
  });

  test("has the 4-module quiet zone and draws nothing outside the code", () => {
    const svg = qrSvg(URIS[2], "x");
    const n = qrMatrix(URIS[2]).length;
    expect(svg).toContain(`viewBox="-${QUIET_ZONE} -${QUIET_ZONE} ${n + 2 * QUIET_ZONE} ${n + 2 * QUIET_ZONE}"`);
    for (const m of svg.matchAll(/M(\d+) (\d+)h(\d+)/g)) expect(Number(m[1]) + Number(m[3])).toBeLessThanOrEqual(n);
  });

  test("its label is escaped and nothing in it needs a style attribute or a script", () => {
    const svg = qrSvg(URIS[0], `pay "1" <b>&`);
    expect(svg).toContain('aria-label="pay &quot;1&quot; &lt;b&gt;&amp;"');
    expect(svg).toContain('role="img"');
    expect(svg).not.toMatch(/style=|<script|on[a-z]+=/i);
  });

  test("the cache answers the same markup, and forgets its oldest entry when full", () => {
    const cached = createQrCache(2);
    const a = cached(URIS[0], "a");
    expect(cached(URIS[0], "a")).toBe(a);
    expect(a).toBe(qrSvg(URIS[0], "a"));
    cached(URIS[1], "b");
    cached(URIS[2], "c");
    // Still correct after being forgotten: made again.
    expect(readQrSvg(cached(URIS[0], "a"))).toBe(URIS[0]);
  });
});
