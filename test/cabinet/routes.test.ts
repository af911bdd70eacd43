import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runCli, until, writeToml } from "../delivery/fixtures.ts";
import { signedHeaders, startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { alertOf, type CabinetUser, noticeOf, signIn, signInLink } from "./support.ts";

let td: TestDaemon;
let sink: WebhookSink;

beforeAll(async () => {
  sink = startWebhookSink();
  td = await startTestDaemon({ config: { delivery: { backoff_seconds: [3600], max_attempts: 1 } } });
});
afterAll(async () => {
  await td.stop();
  await sink.stop();
});

async function account(slots = 3): Promise<{ c: TestClient; u: CabinetUser }> {
  const c = await td.client({ slots, credits: 1000 });
  return { c, u: await signIn(td, c.accountId) };
}

describe("sign-in links and sessions", () => {
  test("a page without a session answers 401 and points at the link command", async () => {
    for (const cookie of [undefined, "chainwatch_session=not-a-session"]) {
      const res = await fetch(`${td.url}/cabinet/keys`, { headers: cookie ? { cookie } : {} });
      expect(res.status).toBe(401);
      expect(await res.text()).toContain("chainwatch cabinet link --account NAME");
    }
  });

  test("a link shows its sign-in page without being used up, signs in once, then never again", async () => {
    const c = await td.client({ name: "linkshop" });
    const url = await signInLink(td, c.accountId);
    const token = new URL(url).searchParams.get("token") as string;
    for (let i = 0; i < 2; i++) {
      const peek = await fetch(url);
      expect(peek.status).toBe(200);
      expect(await peek.text()).toContain("Sign in as linkshop");
    }
    const first = await fetch(`${td.url}/cabinet/login`, { method: "POST", body: new URLSearchParams({ token }), redirect: "manual" });
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/cabinet/");
    const cookie = first.headers.get("set-cookie") as string;
    expect(cookie).toMatch(/^chainwatch_session=[A-Za-z0-9_-]{43}; Path=\/cabinet; HttpOnly; SameSite=Strict; Max-Age=604800$/);

    const again = await fetch(`${td.url}/cabinet/login`, { method: "POST", body: new URLSearchParams({ token }), redirect: "manual" });
    expect(again.status).toBe(410);
    expect(again.headers.get("set-cookie")).toBeNull();
    expect((await fetch(url)).status).toBe(410);

    const overview = await fetch(`${td.url}/cabinet/`, { headers: { cookie: cookie.split(";")[0] } });
    expect(overview.status).toBe(200);
    expect(await overview.text()).toContain("Account <b>linkshop</b>");
  });

  test("a form post over server.body_limit_bytes is refused with 413 before it is read", async () => {
    const limit = td.ctx.config.server.body_limit_bytes;
    const res = await fetch(`${td.url}/cabinet/login`, { method: "POST", body: new URLSearchParams({ token: "x".repeat(limit) }), redirect: "manual" });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: `Request body exceeds ${limit} bytes.` });
  });

  test("links and sessions are stored only as hashes", async () => {
    const c = await td.client();
    const url = await signInLink(td, c.accountId);
    const token = new URL(url).searchParams.get("token") as string;
    const res = await fetch(`${td.url}/cabinet/login`, { method: "POST", body: new URLSearchParams({ token }), redirect: "manual" });
    const session = (res.headers.get("set-cookie") as string).split(";")[0].split("=")[1];
    const dump = JSON.stringify([
      await td.ctx.db.selectFrom("cabinet_links").selectAll().execute(),
      await td.ctx.db.selectFrom("cabinet_sessions").selectAll().execute(),
    ]);
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(session);
  });

  test("logout needs the CSRF token, ends the session and clears the cookie", async () => {
    const { u } = await account();
    const refused = await u.post("/cabinet/logout", {}, { csrf: false });
    expect(refused.status).toBe(403);
    expect((await u.get("/cabinet/")).status).toBe(200);
    const out = await u.post("/cabinet/logout");
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toBe("chainwatch_session=; Path=/cabinet; HttpOnly; SameSite=Strict; Max-Age=0");
    expect((await u.get("/cabinet/")).status).toBe(401);
  });

  test("/cabinet without the slash redirects (308) to /cabinet/, keeping the query; other paths stay exact", async () => {
    const { u } = await account();
    for (const [path, location] of [
      ["/cabinet", "/cabinet/"],
      ["/cabinet?from=bookmark", "/cabinet/?from=bookmark"],
    ]) {
      const res = await u.get(path);
      expect([res.status, res.headers.get("location"), res.headers.get("cache-control")]).toEqual([308, location, "no-store"]);
    }
    const followed = await fetch(`${td.url}/cabinet`, { headers: { cookie: u.cookie } });
    expect([followed.status, followed.url]).toEqual([200, `${td.url}/cabinet/`]);
    expect(await followed.text()).toContain("<h1>Overview</h1>");
    expect((await u.get("/cabinet/keys/")).status).toBe(404);
  });

  test("every response forbids caching, framing, referrers and foreign scripts", async () => {
    const { u } = await account();
    const res = await u.get("/cabinet/webhook");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("content-security-policy")).toMatch(/^default-src 'none'; style-src 'sha256-[^']+'; script-src 'sha256-[^']+';/);
  });
});

describe("CSRF", () => {
  test("a form post without the token, or with another session's, is refused with 403 and changes nothing", async () => {
    const { c, u } = await account();
    const other = await signIn(td, c.accountId);
    expect(other.csrf).not.toBe(u.csrf);
    const fields = { network_slug: "eth", address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" };
    const missing = await u.post("/cabinet/addresses", fields, { csrf: false });
    expect(missing.status).toBe(403);
    expect(alertOf(await missing.text())).toBe("Missing or invalid CSRF token. Reload the page and try again.");
    const foreign = await u.post("/cabinet/addresses", { ...fields, csrf: other.csrf }, { csrf: false });
    expect(foreign.status).toBe(403);
    const json = await u.post("/cabinet/addresses", fields, { csrf: false, accept: "application/json" });
    expect(json.status).toBe(403);
    expect(await json.json()).toEqual({ error: "Missing or invalid CSRF token. Reload the page and try again." });
    const watches = await (await c.request("GET", "/v1/address-watch/addresses")).json();
    expect(watches).toEqual({ addresses: [] });
  });
});

describe("the API's rules and messages", () => {
  test("adding addresses: the same refusals as POST /v1/address-watch/addresses, and the slot counter", async () => {
    const { c, u } = await account(1);
    const cases: [Record<string, string>, number, string][] = [
      [{ network_slug: "eth", address: "0x1234" }, 400, "Invalid address for network eth"],
      [{ network_slug: "nope", address: "x" }, 400, "Unknown network: nope"],
    ];
    for (const [fields, status, message] of cases) {
      const res = await u.post("/cabinet/addresses", fields);
      expect(res.status).toBe(status);
      expect(alertOf(await res.text())).toBe(message);
      const api = await c.request("POST", "/v1/address-watch/addresses", fields);
      expect(api.status).toBe(status);
      expect(await api.json()).toEqual({ error: message });
    }
    const ok = await u.post("/cabinet/addresses", { network_slug: "eth", address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" });
    expect(ok.status).toBe(200);
    const page = await ok.text();
    expect(noticeOf(page)).toBe("Watching 0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed on eth.");
    expect(page).toContain('data-url="/cabinet/addresses"');
    expect(page).toContain("<strong>1</strong> of <strong>1</strong> address slots used");
    const full = await u.post("/cabinet/addresses", { network_slug: "eth", address: "0x52908400098527886e0f7030069857d2e4169ee7" });
    expect(full.status).toBe(403);
    const fullPage = await full.text();
    expect(alertOf(fullPage)).toBe("Address slot limit reached.");
    // The refused form keeps what was typed.
    expect(fullPage).toContain('value="0x52908400098527886e0f7030069857d2e4169ee7"');
  });

  test("the addresses page says where each network's blocks come from and which /rpc serves, as GET /v1/endpoints does", async () => {
    // Nothing listens on port 1: the follower only has to exist, not to read anything.
    const dev = { family: "evm", confirmations: 1, rpc_urls: ["http://127.0.0.1:1"], follow: true };
    const other = await startTestDaemon({ config: { networks: { dev, proxied: { family: "evm", rpc_urls: ["http://127.0.0.1:1"] } } } });
    try {
      const c = await other.client({ slots: 1 });
      const u = await signIn(other, c.accountId);
      const page = await (await u.get("/cabinet/addresses")).text();
      const table = page.slice(page.indexOf('<table id="networks">'), page.indexOf("</table>", page.indexOf('<table id="networks">')));
      const rows = [...table.matchAll(/<tr>(.*?)<\/tr>/g)].map((r) => [...r[1].matchAll(/<t[dh][^>]*>(.*?)<\/t[dh]>/g)].map((m) => m[1]));
      const ingestOnly = "Ingest only: events come when blocks are fed in (POST /ingest/blocks or chainwatch ingest)";
      expect(rows).toEqual([
        ["Network", "Family", "Blocks", "JSON-RPC"],
        ["eth", "evm", ingestOnly, "No"],
        ["bsc", "evm", ingestOnly, "No"],
        ["polygon", "evm", ingestOnly, "No"],
        ["btc", "btc", ingestOnly, "No"],
        ["tron", "tron", ingestOnly, "No"],
        ["sol", "solana", ingestOnly, "No"],
        ["dev", "evm", "Followed: chainwatch reads the chain from a node", "<code>/rpc/dev</code>"],
        ["proxied", "evm", ingestOnly, "<code>/rpc/proxied</code>"],
      ]);
      // The form's choices say it too.
      expect(page).toContain('<option value="dev">dev (followed)</option>');
      expect(page).toContain('<option value="eth" selected>eth (ingest only)</option>');
    } finally {
      await other.stop();
    }
  });

  test("the webhook form stores what PUT /v1/address-watch/webhook would, filters included", async () => {
    const { c, u } = await account();
    const res = await u.post("/cabinet/webhook", { url: sink.url, enabled: "true", payout: "true", block: "true", block_networks: ["eth", "btc"] });
    expect(res.status).toBe(200);
    expect(noticeOf(await res.text())).toBe("Webhook saved.");
    const api = await (await c.request("GET", "/v1/address-watch/webhook")).json();
    // toMatchObject: filters may gain keys (min_confirmations) that this form then also sends.
    expect(api).toMatchObject({
      url: sink.url,
      enabled: true,
      events: { payment: false, payment_networks: [], payout: true, payout_networks: [], block: true, block_networks: ["eth", "btc"] },
      egress_ips: [],
    });
    const noUrl = await u.post("/cabinet/webhook", { url: "", enabled: "true" });
    expect(noUrl.status).toBe(400);
    expect(alertOf(await noUrl.text())).toBe("url is required when enabled is true");
  });

  test("the Test button answers at once with the delivery id, and refuses what the API refuses", async () => {
    const { u } = await account();
    await u.post("/cabinet/webhook", { url: sink.url, enabled: "true", payment: "true" });
    const before = sink.received.length;
    const res = await u.post("/cabinet/webhook/test", { event: "payment", network: "eth" }, { accept: "application/json" });
    expect(res.status).toBe(200);
    const { message } = (await res.json()) as { message: string };
    expect(message).toMatch(/^queued dlv_[0-9a-f]{24}$/);
    const id = message.slice("queued ".length);
    const got = await sink.waitFor(before + 1);
    const hit = got.find((r) => r.headers["x-webhook-id"] === id);
    expect(hit?.headers["x-webhook-test"]).toBe("true");
    const bad = await u.post("/cabinet/webhook/test", { event: "payment", network: "nope" }, { accept: "application/json" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "Unknown network: nope" });
  });

  test("without script, the Test's page links the delivery it queued; the delivery answers its result as JSON, null until its first attempt", async () => {
    const { u } = await account();
    await u.post("/cabinet/webhook", { url: sink.url, enabled: "true" });
    const res = await u.post("/cabinet/webhook/test", { event: "payment", network: "eth" });
    expect(res.status).toBe(200);
    const page = await res.text();
    const [, id, href] = /role="status">queued (dlv_[0-9a-f]{24}) <a href="([^"]+)">Follow it<\/a><\/div>/.exec(page) ?? [];
    expect(href).toBe(`/cabinet/deliveries/${id}`);
    const outcome = await until(
      () => fetch(`${td.url}${href}`, { headers: { cookie: u.cookie, accept: "application/json" } }).then((r) => r.json() as Promise<Record<string, any>>),
      (o) => o.result !== null,
    );
    expect(outcome).toEqual({ delivery_id: id, status: "succeeded", attempts: 1, result: expect.stringMatching(/^succeeded: HTTP 200 in \d+ ms$/) });
    // The page itself, without Accept: application/json, is the delivery's HTML page.
    expect((await u.get(href)).headers.get("content-type")).toStartWith("text/html");
    // Another account's delivery, asked as JSON, is not found.
    const other = await account();
    const foreign = await fetch(`${td.url}${href}`, { headers: { cookie: other.u.cookie, accept: "application/json" } });
    expect([foreign.status, await foreign.json()]).toEqual([404, { error: "Delivery not found." }]);
    // The JSON answer of a Test post names the same page.
    const posted = (await (await u.post("/cabinet/webhook/test", { event: "block", network: "eth" }, { accept: "application/json" })).json()) as Record<string, string>;
    expect(posted.link).toBe(`/cabinet/deliveries/${/^queued (dlv_[0-9a-f]{24})$/.exec(posted.message)?.[1]}`);
  });

  test("a failed delivery shows its attempt and Resend re-queues it; a succeeded one is not re-sent", async () => {
    const { u } = await account();
    await u.post("/cabinet/webhook", { url: sink.url, enabled: "true" });
    sink.respond(() => new Response("receiver says no", { status: 500 }));
    try {
      const queued = (await (await u.post("/cabinet/webhook/test", { event: "block", network: "btc" }, { accept: "application/json" })).json()) as { message: string };
      const id = queued.message.slice("queued ".length);
      const row = () => td.ctx.db.selectFrom("deliveries").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
      await until(row, (d) => d.status === "failed");
      const page = await (await u.get("/cabinet/deliveries?status=failed")).text();
      expect(page).toContain(`<tr id="${id}"><td data-label="Status"><span class="badge failed">failed</span> <span class="muted">test</span></td>`);
      const detail = await (await u.get(`/cabinet/deliveries/${id}`)).text();
      expect(detail).toContain('<td data-label="Result" class="result">HTTP 500</td>');
      expect(detail).toContain("<pre>receiver says no</pre>");
      sink.respond(() => new Response("ok"));
      const resent = await u.post(`/cabinet/deliveries/${id}/resend`);
      expect(resent.status).toBe(200);
      expect(noticeOf(await resent.text())).toBe(`Re-queued ${id}.`);
      const done = await until(row, (d) => d.status === "succeeded");
      expect(done.attempts).toBe(1);
      const twice = await u.post(`/cabinet/deliveries/${id}/resend`);
      expect(twice.status).toBe(400);
      expect(alertOf(await twice.text())).toBe(`delivery ${id} already succeeded`);
    } finally {
      sink.respond(() => new Response("ok"));
    }
  });

  test("a bad status filter or events cursor is the API's 400", async () => {
    const { u } = await account();
    const bad = await u.get("/cabinet/deliveries?status=lost");
    expect(bad.status).toBe(400);
    expect(alertOf(await bad.text())).toBe("status must be one of pending, succeeded, failed, paused, held");
    const cursor = await u.get("/cabinet/events?after=evt_nope");
    expect(cursor.status).toBe(400);
    expect(alertOf(await cursor.text())).toBe("Unknown cursor: evt_nope");
  });
});

describe("API keys", () => {
  test("a created key's secret is on the answering page only, signs requests, and is escaped with its label", async () => {
    const { u } = await account();
    const res = await u.post("/cabinet/keys", { label: "<b>shop</b>", allow_ips: "" });
    expect(res.status).toBe(200);
    const page = await res.text();
    const apiKey = /<code id="new-key">([^<]+)</.exec(page)?.[1] as string;
    const secret = /<code id="new-secret">([0-9a-f]{64})</.exec(page)?.[1] as string;
    expect(secret).toHaveLength(64);
    expect(page).toContain("&lt;b&gt;shop&lt;/b&gt;");
    expect(page).not.toContain("<b>shop</b>");
    const later = await (await u.get("/cabinet/keys")).text();
    expect(later).toContain(apiKey);
    expect(later).not.toContain(secret);
    const signed = await fetch(`${td.url}/v1/account`, { headers: signedHeaders({ apiKey, secret }, "GET", "/v1/account") });
    expect(signed.status).toBe(200);
  });

  test("allowlists are checked like the CLI's, and revoking makes the key invalid", async () => {
    const { u } = await account();
    const bad = await u.post("/cabinet/keys", { allow_ips: "10.0.0.0/8\nnope" });
    expect(bad.status).toBe(400);
    expect(alertOf(await bad.text())).toBe("nope is not an IP address or CIDR");
    const page = await (await u.post("/cabinet/keys", { allow_ips: "" })).text();
    const apiKey = /<code id="new-key">([^<]+)</.exec(page)?.[1] as string;
    const secret = /<code id="new-secret">([^<]+)</.exec(page)?.[1] as string;
    const saved = await u.post(`/cabinet/keys/${apiKey}/allow-ips`, { allow_ips: "203.0.113.0/24, 2001:db8::/32" });
    expect(saved.status).toBe(200);
    const row = await td.ctx.db.selectFrom("api_keys").select("allow_ips").where("api_key", "=", apiKey).executeTakeFirstOrThrow();
    expect(JSON.parse(row.allow_ips)).toEqual(["203.0.113.0/24", "2001:db8::/32"]);
    expect((await u.post(`/cabinet/keys/${apiKey}/revoke`)).status).toBe(200);
    const signed = await fetch(`${td.url}/v1/account`, { headers: signedHeaders({ apiKey, secret }, "GET", "/v1/account") });
    expect(signed.status).toBe(401);
    expect((await u.post(`/cabinet/keys/${apiKey}/revoke`)).status).toBe(404);
  });
});

describe("one account's session never reaches another's data", () => {
  test("ids of another account are not found (404) and nothing changes", async () => {
    const a = await account();
    const b = await account();
    const watch = (await (await a.c.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address: "0x52908400098527886e0f7030069857d2e4169ee7" })).json()) as { watch_id: string };
    const order = (await (await a.c.request("POST", "/v1/payments", { order_id: "o-1", network: "eth", address: "0x00000000000000000000000000000000000000a1", amount: "1" })).json()) as { payment_id: string };
    await a.u.post("/cabinet/webhook", { url: sink.url, enabled: "true" });
    const queued = (await (await a.u.post("/cabinet/webhook/test", { event: "payment", network: "eth" }, { accept: "application/json" })).json()) as { message: string };
    const deliveryId = queued.message.slice("queued ".length);

    const attempts: [string, Promise<Response>, string][] = [
      ["order page", b.u.get(`/cabinet/payments/${order.payment_id}`), "Payment not found."],
      ["watch delete", b.u.post(`/cabinet/addresses/${watch.watch_id}/delete`), "Watch not found."],
      ["key revoke", b.u.post(`/cabinet/keys/${a.c.apiKey}/revoke`), "API key not found."],
      ["key allowlist", b.u.post(`/cabinet/keys/${a.c.apiKey}/allow-ips`, { allow_ips: "" }), "API key not found."],
      ["delivery resend", b.u.post(`/cabinet/deliveries/${deliveryId}/resend`), "Delivery not found."],
    ];
    for (const [what, pending, message] of attempts) {
      const res = await pending;
      expect([what, res.status]).toEqual([what, 404]);
      expect([what, alertOf(await res.text())]).toEqual([what, message]);
    }
    expect((await a.u.get(`/cabinet/payments/${order.payment_id}`)).status).toBe(200);
    const lists = await Promise.all(["/cabinet/addresses", "/cabinet/deliveries", "/cabinet/payments", "/cabinet/keys"].map(async (p) => (await b.u.get(p)).text()));
    for (const text of lists) {
      for (const id of [watch.watch_id, deliveryId, order.payment_id, a.c.apiKey]) expect(text).not.toContain(id);
    }
    expect((await a.c.request("GET", "/v1/address-watch/addresses")).status).toBe(200);
    expect(((await (await a.c.request("GET", "/v1/address-watch/addresses")).json()) as { addresses: unknown[] }).addresses).toHaveLength(1);
  });
});

describe("configuration", () => {
  test("with [cabinet] enabled = false there is no cabinet", async () => {
    const off = await startTestDaemon({ config: { cabinet: { enabled: false } } });
    try {
      const res = await fetch(`${off.url}/cabinet/`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: "Not found." });
    } finally {
      await off.stop();
    }
  });

  test("cabinet link: a usage error for a bad --ttl, a refusal while the cabinet is disabled", async () => {
    const enabled = writeToml(td.dir, []);
    expect(await runCli(["accounts", "create", "cli-shop", "--create", "--config", enabled])).toMatchObject({ code: 0 });
    const badTtl = await runCli(["cabinet", "link", "--account", "cli-shop", "--ttl", "8d", "--config", enabled]);
    expect(badTtl).toEqual({ code: 2, stdout: "", stderr: "chainwatch: --ttl must be a duration such as 30s, 15m, 2h or 7d, at most 7d (see --help)\n" });
    const ok = await runCli(["cabinet", "link", "--account", "cli-shop", "--config", enabled]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^http:\/\/127\.0\.0\.1:0\/cabinet\/login\?token=[A-Za-z0-9_-]{43}\n\nOne sign-in, valid until \S+\.\n$/);
    const disabled = writeToml(td.dir, ["[cabinet]", "enabled = false"]);
    const off = await runCli(["cabinet", "link", "--account", "cli-shop", "--config", disabled]);
    expect(off).toEqual({ code: 1, stdout: "", stderr: "chainwatch: the cabinet is disabled ([cabinet] enabled = false)\n" });
  });

  test("a private webhook target is refused with the API's message when private targets are not allowed", async () => {
    const strict = await startTestDaemon({ config: { delivery: { allow_private_targets: false } } });
    try {
      const c = await strict.client();
      const u = await signIn(strict, c.accountId);
      const res = await u.post("/cabinet/webhook", { url: "http://127.0.0.1:9/hook", enabled: "true" });
      expect(res.status).toBe(400);
      const api = await c.request("PUT", "/v1/address-watch/webhook", { url: "http://127.0.0.1:9/hook", enabled: true });
      const { error } = (await api.json()) as { error: string };
      expect(alertOf(await res.text())).toBe(error);
      expect(error).toContain("private");
    } finally {
      await strict.stop();
    }
  });

  test("the OpenAPI document leaves the cabinet's pages and forms out: they are for a browser, not API clients", async () => {
    const doc = (await (await fetch(`${td.url}/openapi/json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/cabinet"))).toEqual([]);
    expect(Object.keys(doc.paths)).toContain("/v1/address-watch/addresses");
  });
});

describe("watching a pasted list", () => {
  const evm = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

  test("watches each address of the list (lines, spaces or commas) as the batch route does, and says what became of them", async () => {
    const { c, u } = await account(3);
    expect((await u.post("/cabinet/addresses", { network_slug: "eth", address: evm(1) })).status).toBe(200);
    const res = await u.post("/cabinet/addresses/batch", { network_slug: "eth", addresses: `${evm(2)}\n  0x12 , ${evm(1)}\r\n\n${evm(3)} ${evm(4)}` });
    expect(res.status).toBe(200);
    expect(noticeOf(await res.text())).toBe(
      `Watching 2 new addresses; 1 already watched; 2 refused: 0x12 (Invalid address for network eth), ${evm(4)} (Address slot limit reached.).`,
    );
    const listed = (await (await c.request("GET", "/v1/address-watch/addresses")).json()) as { addresses: { address: string }[] };
    expect(listed.addresses.map((w) => w.address)).toEqual([evm(1), evm(2), evm(3)]);
  });

  test("an empty paste or an unknown network's whole list is refused on the page", async () => {
    const { u } = await account(3);
    const empty = await u.post("/cabinet/addresses/batch", { network_slug: "eth", addresses: " \n, " });
    expect(empty.status).toBe(400);
    expect(alertOf(await empty.text())).toBe("Paste at least one address.");
    const unknown = await u.post("/cabinet/addresses/batch", { network_slug: "nope", addresses: evm(5) });
    expect(unknown.status).toBe(200);
    expect(noticeOf(await unknown.text())).toBe(`Watching 0 new addresses; 1 refused: ${evm(5)} (Unknown network: nope).`);
  });
});
