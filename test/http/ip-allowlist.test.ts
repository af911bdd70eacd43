import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp } from "../../src/http/app.ts";
import { clientIpResolver } from "../../src/net/client-ip.ts";
import { signedHeaders, startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";

const FORBIDDEN = { status: 403, body: { error: "IP address not allowed." } };

async function account(client: TestClient, headers: Record<string, string> = {}) {
  const res = await client.request("GET", "/v1/account", undefined, headers);
  return { status: res.status, body: await res.json() };
}

describe("IP allowlist over IPv4 (a daemon listening on 127.0.0.1)", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    td = await startTestDaemon();
  });
  afterAll(async () => {
    await td.stop();
  });

  test("a key without an allowlist is accepted from any address", async () => {
    expect((await account(await td.client())).status).toBe(200);
  });

  test("a key allowed only 10.0.0.0/8 is refused with 403 IP address not allowed.", async () => {
    expect(await account(await td.client({ allowIps: ["10.0.0.0/8"] }))).toEqual(FORBIDDEN);
  });

  test("a key allowed 127.0.0.1/32 is accepted", async () => {
    expect((await account(await td.client({ allowIps: ["127.0.0.1/32"] }))).status).toBe(200);
  });

  test("a bare IP in the allowlist counts as a single-address prefix", async () => {
    expect((await account(await td.client({ allowIps: ["127.0.0.1"] }))).status).toBe(200);
    expect(await account(await td.client({ allowIps: ["127.0.0.2"] }))).toEqual(FORBIDDEN);
  });

  test("any entry of the allowlist may match", async () => {
    expect((await account(await td.client({ allowIps: ["10.0.0.0/8", "2001:db8::/32", "127.0.0.0/8"] }))).status).toBe(200);
  });

  test("a v6 allowlist never admits a v4 peer", async () => {
    expect(await account(await td.client({ allowIps: ["::1/128", "::/0"] }))).toEqual(FORBIDDEN);
  });

  test("X-Forwarded-For is ignored while trust_proxy is off", async () => {
    const c = await td.client({ allowIps: ["203.0.113.7/32"] });
    expect(await account(c, { "X-Forwarded-For": "203.0.113.7" })).toEqual(FORBIDDEN);
    const local = await td.client({ allowIps: ["127.0.0.1/32"] });
    expect((await account(local, { "X-Forwarded-For": "203.0.113.7" })).status).toBe(200);
  });

  test("an allowlist refusal is counted in the auth rejection metric", async () => {
    await account(await td.client({ allowIps: ["10.0.0.0/8"] }));
    expect(td.daemon.deps.metrics.render()).toContain('chainwatch_auth_rejections_total{reason="ip_not_allowed"}');
  });
});

describe("IP allowlist over IPv6 (a daemon listening on ::1)", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    td = await startTestDaemon({ config: { server: { host: "::1" } } });
  });
  afterAll(async () => {
    await td.stop();
  });

  test("the daemon is reached over ::1", () => {
    expect(td.url).toStartWith("http://[::1]:");
  });

  test.each([["::1/128"], ["::1"], ["::/0"], ["0:0:0:0:0:0:0:1/128"]])("a key allowed %s is accepted", async (cidr) => {
    expect((await account(await td.client({ allowIps: [cidr] }))).status).toBe(200);
  });

  test.each([["fe80::/10"], ["2001:db8::/32"], ["127.0.0.1/32"], ["0.0.0.0/0"]])("a key allowed only %s is refused with 403", async (cidr) => {
    expect(await account(await td.client({ allowIps: [cidr] }))).toEqual(FORBIDDEN);
  });
});

describe("IP allowlist with an injected client IP (app.handle, no socket)", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    td = await startTestDaemon();
  });
  afterAll(async () => {
    await td.stop();
  });

  /** The real app over the daemon's dependencies, with the peer address `peer` standing in for a socket. */
  async function fromPeer(peer: string, allowIps: string[]) {
    const app = createApp({ ...td.daemon.deps, clientIp: clientIpResolver({ trustProxy: false, fallback: peer }) });
    const c = await td.client({ allowIps });
    const headers = signedHeaders(c, "GET", "/v1/account", "", Math.floor(Date.now() / 1000));
    const res = await app.handle(new Request("http://localhost/v1/account", { headers }));
    return { status: res.status, body: await res.json() };
  }

  test.each([
    ["2001:db8::5", "2001:db8::/32"],
    ["2001:db8::5", "2001:db8::5/128"],
    ["2001:DB8:0:0:0:0:0:5", "2001:db8::/64"],
    ["::ffff:10.1.2.3", "10.0.0.0/8"],
    ["10.1.2.3", "::ffff:10.0.0.0/104"],
  ])("a client at %s is accepted by %s", async (peer, cidr) => {
    expect((await fromPeer(peer, [cidr])).status).toBe(200);
  });

  test.each([
    ["2001:db8::5", "2001:db9::/32"],
    ["2001:db8::5", "2001:db8::6/128"],
    ["10.1.2.3", "2001:db8::/32"],
  ])("a client at %s is refused by %s", async (peer, cidr) => {
    expect(await fromPeer(peer, [cidr])).toEqual(FORBIDDEN);
  });
});

describe("trust_proxy", () => {
  let td: TestDaemon;
  beforeAll(async () => {
    td = await startTestDaemon({ config: { server: { trust_proxy: true } } });
  });
  afterAll(async () => {
    await td.stop();
  });

  test("takes the client IP from the first X-Forwarded-For entry", async () => {
    const c = await td.client({ allowIps: ["203.0.113.7/32"] });
    expect((await account(c, { "X-Forwarded-For": "203.0.113.7, 10.0.0.1" })).status).toBe(200);
  });

  test("ignores the later X-Forwarded-For entries", async () => {
    const c = await td.client({ allowIps: ["203.0.113.7/32"] });
    expect(await account(c, { "X-Forwarded-For": "10.0.0.1, 203.0.113.7" })).toEqual(FORBIDDEN);
  });

  test("accepts a v6 first entry", async () => {
    const c = await td.client({ allowIps: ["2001:db8::/32"] });
    expect((await account(c, { "X-Forwarded-For": "2001:db8::1, 203.0.113.7" })).status).toBe(200);
  });

  test("falls back to the socket peer when X-Forwarded-For is absent", async () => {
    const remote = await td.client({ allowIps: ["203.0.113.7/32"] });
    expect(await account(remote)).toEqual(FORBIDDEN);
    const local = await td.client({ allowIps: ["127.0.0.1/32"] });
    expect((await account(local)).status).toBe(200);
  });

  test("a garbage first entry never passes an allowlist", async () => {
    const c = await td.client({ allowIps: ["0.0.0.0/0"] });
    expect(await account(c, { "X-Forwarded-For": "unknown, 203.0.113.7" })).toEqual(FORBIDDEN);
  });
});
