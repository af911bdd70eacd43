import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { deliveriesWithBodies, enqueueDelivery } from "../../src/delivery/outbox.ts";
import { escapeHtml } from "../../src/lib/html.ts";
import { runCli, until, writeToml } from "../delivery/fixtures.ts";
import { blk, chain, ingest, pay, type Rig, settled, startRig } from "../ingest/reorg-support.ts";
import { blockMaker, freshTxHash, ingestOk } from "../payments/support.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { alertOf, type CabinetUser, noticeOf, signIn } from "./support.ts";
import { defaultEndpointId } from "../support/endpoints.ts";

// The cabinet's event and delivery logs: newest first, paged both ways by cursor, filtered; one
// page per delivery (attempts, exact body, headers as sent) and per event (its stored body).

const W = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
const FROM = "0x1111111111111111111111111111111111111111";

let td: TestDaemon;
let sink: WebhookSink;

beforeAll(async () => {
  sink = startWebhookSink();
  td = await startTestDaemon({
    config: {
      delivery: { backoff_seconds: [3600], max_attempts: 1 },
      networks: { gen: { family: "generic", decimals: 0, confirmations: 1 } },
    },
  });
});
afterAll(async () => {
  await td.stop();
  await sink.stop();
});

async function account(): Promise<{ c: TestClient; u: CabinetUser }> {
  const c = await td.client({ slots: 5, credits: 100_000 });
  return { c, u: await signIn(td, c.accountId) };
}

const text = async (u: CabinetUser, path: string) => {
  const res = await u.get(path);
  return { status: res.status, page: await res.text() };
};

/** The ids of a log page's rows, top to bottom. */
const rowIds = (page: string) => [...page.matchAll(/<tr id="((?:evt|dlv)_[0-9a-f]+)"/g)].map((m) => m[1]);

/** The page's pager, exactly. */
const pagerOf = (page: string) => /<nav class="pager" aria-label="Pages">.*?<\/nav>/s.exec(page)?.[0];

/** The events the signed API lists for the account, oldest first. */
async function apiEvents(c: TestClient): Promise<Record<string, unknown>[]> {
  return ((await (await c.request("GET", "/v1/address-watch/events?limit=1000")).json()) as { events: Record<string, unknown>[] }).events;
}

describe("the events log", () => {
  let c: TestClient;
  let u: CabinetUser;
  let listed: Record<string, unknown>[];
  const hashes: string[] = [];

  beforeAll(async () => {
    ({ c, u } = await account());
    expect((await c.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address: W })).status).toBe(201);
    const block = blockMaker("eth", 5_000);
    for (let i = 0; i < 30; i++) hashes.push(freshTxHash());
    await ingestOk(td, block(hashes.map((hash, i) => ({ hash, from: FROM, to: W.toLowerCase(), value: String((i + 1) * 10 ** 15) }))));
    await ingestOk(td, block([]));
    listed = await apiEvents(c);
    // 30 payments and 2 block events.
    expect(listed).toHaveLength(32);
  });

  test("lists the newest first, 25 a page, and pages down and up again by cursor", async () => {
    const newestFirst = listed.map((e) => e.id as string).reverse();
    const first = await text(u, "/cabinet/events");
    expect(rowIds(first.page)).toEqual(newestFirst.slice(0, 25));
    expect(pagerOf(first.page)).toBe(`<nav class="pager" aria-label="Pages"><a href="/cabinet/events?before=${newestFirst[24]}" rel="next">Older →</a></nav>`);

    const second = await text(u, `/cabinet/events?before=${newestFirst[24]}`);
    expect(rowIds(second.page)).toEqual(newestFirst.slice(25));
    expect(pagerOf(second.page)).toBe(
      `<nav class="pager" aria-label="Pages"><a href="/cabinet/events">Newest</a><a href="/cabinet/events?after=${newestFirst[25]}" rel="prev">← Newer</a></nav>`,
    );
    // Up again: the page above is the first page, whole.
    const up = await text(u, `/cabinet/events?after=${newestFirst[25]}`);
    expect(rowIds(up.page)).toEqual(newestFirst.slice(0, 25));
    // From the middle, the page above is the 25 just newer, nearest last.
    const middle = await text(u, `/cabinet/events?after=${newestFirst[30]}`);
    expect(rowIds(middle.page)).toEqual(newestFirst.slice(5, 30));
    expect(pagerOf(middle.page)).toContain(`<a href="/cabinet/events?after=${newestFirst[5]}" rel="prev">← Newer</a>`);
    expect(pagerOf(middle.page)).toContain(`<a href="/cabinet/events?before=${newestFirst[29]}" rel="next">Older →</a>`);
  });

  test("filters by transaction hash and by address (any letter case), keeping the filters in the paging links", async () => {
    const wanted = listed.find((e) => e.tx_hash === hashes[4]) as Record<string, unknown>;
    const byTx = await text(u, `/cabinet/events?tx_hash=${hashes[4].toUpperCase().replace("0X", "0x")}`);
    expect(rowIds(byTx.page)).toEqual([wanted.id as string]);
    expect(byTx.page).toContain(`<input type="text" id="f-tx" name="tx_hash" value="${hashes[4].toUpperCase().replace("0X", "0x")}"`);
    expect(pagerOf(byTx.page)).toBe('<nav class="pager" aria-label="Pages"></nav>');

    // The checksummed address finds the stored lower-case one; block events have no address.
    const byAddress = await text(u, `/cabinet/events?address=${W}`);
    const payments = listed.filter((e) => e.type === "payment").map((e) => e.id as string).reverse();
    expect(rowIds(byAddress.page)).toEqual(payments.slice(0, 25));
    expect(pagerOf(byAddress.page)).toBe(`<nav class="pager" aria-label="Pages"><a href="/cabinet/events?address=${encodeURIComponent(W)}&amp;before=${payments[24]}" rel="next">Older →</a></nav>`);
    const older = await text(u, `/cabinet/events?address=${W}&before=${payments[24]}`);
    expect(rowIds(older.page)).toEqual(payments.slice(25));

    const blocks = await text(u, "/cabinet/events?type=block&network=eth");
    expect(rowIds(blocks.page)).toEqual(listed.filter((e) => e.type === "block").map((e) => e.id as string).reverse());
    const none = await text(u, "/cabinet/events?tx_hash=0xnothing");
    expect(rowIds(none.page)).toEqual([]);
    expect(none.page).toContain("<p>No events match these filters.</p>");
  });

  test("refuses a bad filter or cursor with the API's 400", async () => {
    for (const [path, message] of [
      ["/cabinet/events?before=evt_nope", "Unknown cursor: evt_nope"],
      [`/cabinet/events?before=${listed[0].id}&after=${listed[1].id}`, "give before or after, not both"],
      ["/cabinet/events?type=transfer", "type must be one of payment, payout, other, block"],
      ["/cabinet/events?network=nope", "Unknown network: nope"],
      [`/cabinet/events?address=${"a".repeat(129)}`, "address must be at most 128 characters"],
      ["/cabinet/events?tx_hash=a&tx_hash=b", "tx_hash must be given once"],
    ]) {
      const res = await text(u, path);
      expect([path, res.status, alertOf(res.page)]).toEqual([path, 400, message]);
    }
  });

  test("an event's page shows its stored body pretty-printed and escaped, and its deliveries", async () => {
    const e = listed[3];
    const res = await text(u, `/cabinet/events/${e.id}`);
    expect(res.status).toBe(200);
    expect(res.page).toContain(`<pre id="event-json">${escapeHtml(JSON.stringify(e, null, 2))}</pre>`);
    // No webhook was set when it was stored: nothing was queued.
    expect(res.page).toContain("None: the webhook was off, or its filters left this event out, when the event was stored.");
    const other = await account();
    for (const [who, path] of [
      [other.u, `/cabinet/events/${e.id}`],
      [u, "/cabinet/events/evt_nope"],
    ] as const) {
      const refused = await text(who, path);
      expect([refused.status, alertOf(refused.page)]).toEqual([404, "Event not found."]);
    }
  });

  test("markup in an event body is shown as text, on the list and on the event's page", async () => {
    const { c: g, u: gu } = await account();
    const address = `<img src=x onerror="alert(1)">`;
    expect((await g.request("POST", "/v1/address-watch/addresses", { network_slug: "gen", address })).status).toBe(201);
    const block = blockMaker("gen", 100);
    await ingestOk(td, block([{ hash: "tx-<b>1</b>", from: "someone", to: address, value: "5" }]));
    const [e] = (await apiEvents(g)).filter((x) => x.type === "payment");
    const list = await text(gu, "/cabinet/events?type=payment");
    expect(list.page).toContain(`<code>&lt;img src=x onerror=&quot;alert(1)&quot;&gt;</code>`);
    expect(list.page).not.toContain(address);
    const one = await text(gu, `/cabinet/events/${e.id}`);
    expect(one.page).toContain(`<pre id="event-json">${escapeHtml(JSON.stringify(e, null, 2))}</pre>`);
    expect(one.page).toContain("&quot;tx_hash&quot;: &quot;tx-&lt;b&gt;1&lt;/b&gt;&quot;");
    expect(one.page).not.toContain("<b>1</b>");
    // The filters take the same text back.
    expect(rowIds((await text(gu, `/cabinet/events?address=${encodeURIComponent(address)}`)).page)).toEqual([e.id as string]);
    expect(rowIds((await text(gu, `/cabinet/events?tx_hash=${encodeURIComponent("tx-<b>1</b>")}`)).page)).toEqual([e.id as string]);
  });
});

describe("the deliveries log", () => {
  test("one compact row per delivery, newest first, 50 a page, paged both ways and filtered by status", async () => {
    const { c, u } = await account();
    const t0 = td.ctx.clock.now() - 1_000_000;
    const ids: string[] = [];
    // 120 rows, held (the loop leaves them be), two by two created in the same millisecond: the id orders those.
    const endpointId = await defaultEndpointId(td.ctx.db, c.accountId);
    for (let i = 0; i < 120; i++) {
      const body = JSON.stringify({ id: `evt_${i}`, type: "payment", removed: false });
      ids.push(await enqueueDelivery(td.ctx.db, { accountId: c.accountId, endpointId, kind: "event", eventType: "payment", network: "eth", body, nowMs: t0 + Math.floor(i / 2), holdUntilHeight: 10 ** 9 }));
    }
    const newestFirst = [...ids].sort((a, b) => (a < b ? 1 : -1));
    const failed = newestFirst.filter((_, i) => i % 10 === 3);
    await td.ctx.db.updateTable("deliveries").set({ status: "failed", last_status_code: 503, last_error: "http 503" }).where("id", "in", failed).execute();

    const first = await text(u, "/cabinet/deliveries");
    expect(rowIds(first.page)).toEqual(newestFirst.slice(0, 50));
    const row = newestFirst[0];
    expect(first.page).toContain(
      `<tr id="${row}"><td data-label="Status"><span class="badge held">held</span></td>\n<td data-label="Event"><a href="/cabinet/deliveries/${row}">payment</a></td><td data-label="Network">eth</td>\n<td data-label="Created">`,
    );
    expect(first.page).toContain(`<td data-label="Attempts">0</td><td data-label="Last code">—</td></tr>`);
    expect(first.page).toContain(`<tr id="${failed[0]}"><td data-label="Status"><span class="badge failed">failed</span></td>`);
    expect(pagerOf(first.page)).toBe(`<nav class="pager" aria-label="Pages"><a href="/cabinet/deliveries?before=${newestFirst[49]}" rel="next">Older →</a></nav>`);

    const second = await text(u, `/cabinet/deliveries?before=${newestFirst[49]}`);
    expect(rowIds(second.page)).toEqual(newestFirst.slice(50, 100));
    const third = await text(u, `/cabinet/deliveries?before=${newestFirst[99]}`);
    expect(rowIds(third.page)).toEqual(newestFirst.slice(100));
    expect(pagerOf(third.page)).toBe(
      `<nav class="pager" aria-label="Pages"><a href="/cabinet/deliveries">Newest</a><a href="/cabinet/deliveries?after=${newestFirst[100]}" rel="prev">← Newer</a></nav>`,
    );
    expect(rowIds((await text(u, `/cabinet/deliveries?after=${newestFirst[100]}`)).page)).toEqual(newestFirst.slice(50, 100));
    expect(rowIds((await text(u, `/cabinet/deliveries?after=${newestFirst[50]}`)).page)).toEqual(newestFirst.slice(0, 50));

    const onlyFailed = await text(u, "/cabinet/deliveries?status=failed");
    expect(rowIds(onlyFailed.page)).toEqual(failed);
    expect(onlyFailed.page).toContain('<option value="failed" selected>failed</option>');
    expect(onlyFailed.page).toContain(`<td data-label="Attempts">0</td><td data-label="Last code">503</td></tr>`);
    expect(pagerOf(onlyFailed.page)).toBe('<nav class="pager" aria-label="Pages"></nav>');

    // Every status a delivery can have is offered.
    expect([...first.page.matchAll(/<option value="(\w*)"[^>]*>/g)].map((m) => m[1]).slice(0, 6)).toEqual(["", "pending", "succeeded", "failed", "paused", "held"]);
    const other = await account();
    for (const [who, path, message] of [
      [u, "/cabinet/deliveries?status=lost", "status must be one of pending, succeeded, failed, paused, held"],
      [u, "/cabinet/deliveries?before=dlv_nope", "Unknown cursor: dlv_nope"],
      [other.u, `/cabinet/deliveries?before=${ids[0]}`, `Unknown cursor: ${ids[0]}`],
    ] as const) {
      const res = await text(who, path);
      expect([path, res.status, alertOf(res.page)]).toEqual([path, 400, message]);
    }
    const notMine = await text(other.u, `/cabinet/deliveries/${ids[0]}`);
    expect([notMine.status, alertOf(notMine.page)]).toEqual([404, "Delivery not found."]);
  });

  test("a delivery's page shows the exact body and the headers the receiver got, never the secret", async () => {
    const { c, u } = await account();
    await u.post("/cabinet/webhook", { url: sink.url, enabled: "true" });
    const before = sink.received.length;
    const queued = (await (await u.post("/cabinet/webhook/test", { event: "payment", network: "eth" }, { accept: "application/json" })).json()) as { message: string };
    const id = queued.message.slice("queued ".length);
    const [got] = (await sink.waitFor(before + 1)).filter((r) => r.headers["x-webhook-id"] === id);
    await until(() => td.ctx.db.selectFrom("deliveries").select("status").where("id", "=", id).executeTakeFirstOrThrow(), (d) => d.status === "succeeded");

    const { status, page } = await text(u, `/cabinet/deliveries/${id}`);
    expect(status).toBe(200);
    expect(page).toContain(`<h2 id="d-h"><code>${id}</code></h2>\n<p><span class="badge succeeded">succeeded</span> <span class="muted">test</span> payment on eth</p>`);
    expect(page).toContain('<p id="attempt-count">1 attempt · created');
    expect(page).toContain(`<pre id="body-json">${escapeHtml(JSON.stringify(JSON.parse(got.body), null, 2))}</pre>`);
    expect(page).toContain(`<pre id="body-raw">${escapeHtml(got.body)}</pre>`);
    expect(page).toContain(`<summary>Exact bytes sent (${Buffer.byteLength(got.body)} bytes, what the signatures cover)</summary>`);
    const shown = Object.fromEntries([...page.matchAll(/<dt>([^<]+)<\/dt><dd><code>([^<]*)<\/code><\/dd>/g)].map((m) => [m[1].toLowerCase(), m[2]]));
    const sent = Object.fromEntries(Object.entries(got.headers).filter(([k]) => k in shown));
    expect(Object.keys(shown).sort()).toEqual(
      ["content-type", "user-agent", "x-timestamp", "x-signature", "x-webhook-id", "webhook-id", "webhook-timestamp", "webhook-signature", "x-webhook-test"].sort(),
    );
    expect(shown).toEqual(sent);
    // And they verify, recomputed independently from the account's secret.
    const key = Buffer.from(c.webhookSecret.slice("whsec_".length), "base64");
    expect(shown["x-signature"]).toBe(createHmac("sha256", key).update(`${shown["x-timestamp"]}.${got.body}`).digest("hex"));
    expect(page).toContain("As attempt 1 sent them");
    expect(page).not.toContain(c.webhookSecret);
    expect(page).not.toContain(c.webhookSecret.slice("whsec_".length));
    // A succeeded delivery offers no Resend.
    expect(page).not.toContain("/resend");
  });

  test("after Resend the attempt count and the attempt log agree, in the cabinet, the CLI and the notices", async () => {
    const { c, u } = await account();
    sink.respond(() => new Response("receiver says <no>", { status: 500 }));
    try {
      expect((await c.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address: W })).status).toBe(201);
      const hook = await c.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true, events: { payment: true, payout: false, block: false } });
      expect(hook.status).toBe(200);
      await ingestOk(td, blockMaker("eth", 9_000)([{ hash: freshTxHash(), from: FROM, to: W.toLowerCase(), value: "1" }]));
      const row = async () => td.ctx.db.selectFrom("deliveries").selectAll().where("account_id", "=", c.accountId).executeTakeFirstOrThrow();
      const attemptRows = async () => Number((await td.ctx.db.selectFrom("delivery_attempts").select((eb) => eb.fn.countAll().as("n")).where("delivery_id", "=", (await row()).id).executeTakeFirstOrThrow()).n);
      const id = (await until(row, (d) => d.status === "failed")).id;

      const once = (await text(u, `/cabinet/deliveries/${id}`)).page;
      expect(once).toContain('<p id="attempt-count">1 attempt · created');
      expect(once).toContain('<td data-label="Result" class="result">HTTP 500</td>');
      expect(once).toContain("<pre>receiver says &lt;no&gt;</pre>");

      // Resend renders the delivery's own page; whenever its attempt lands, the count is the log's length.
      const resent = await u.post(`/cabinet/deliveries/${id}/resend`);
      expect(resent.status).toBe(200);
      const after = await resent.text();
      expect(noticeOf(after)).toBe(`Re-queued ${id}.`);
      expect(after).toContain(`data-url="/cabinet/deliveries/${id}"`);
      const rowsShown = [...after.matchAll(/<td data-label="#">/g)].length;
      expect(rowsShown).toBeGreaterThanOrEqual(1);
      expect(after).toContain(`<p id="attempt-count">${rowsShown} ${rowsShown === 1 ? "attempt" : "attempts"} · `);

      await until(async () => ({ d: await row(), n: await attemptRows() }), ({ d, n }) => d.status === "failed" && n === 2);
      const twice = (await text(u, `/cabinet/deliveries/${id}`)).page;
      expect(twice).toContain('<p id="attempt-count">2 attempts · created');
      expect([...twice.matchAll(/<td data-label="#">([^<]*(?:<span class="muted">[^<]*<\/span>)?)<\/td>/g)].map((m) => m[1])).toEqual([
        "1",
        '2 <span class="muted">(re-queued)</span>',
      ]);
      expect((await text(u, "/cabinet/deliveries")).page).toContain(`<td data-label="Attempts">2</td><td data-label="Last code">500</td></tr>`);

      // The CLI counts the same way.
      const cli = writeToml(td.dir, []);
      const listed = await runCli(["deliveries", "list", "--account", c.accountId, "--json", "--config", cli]);
      expect(listed.code).toBe(0);
      const [d] = JSON.parse(listed.stdout).deliveries;
      expect(d).toMatchObject({ id, status: "failed", attempts: 2 });
      expect(d.attempt_log.map((a: { attempt: number; requeued: boolean; status_code: number }) => [a.attempt, a.requeued, a.status_code])).toEqual([
        [1, false, 500],
        [2, true, 500],
      ]);
      const table = await runCli(["deliveries", "list", "--account", c.accountId, "--config", cli]);
      expect(table.stdout.trim().split("\n")[1].split(/\s+/).slice(4, 7)).toEqual(["failed", "2", "500"]);

      // Each time it used up its attempts the account holder was told, counting every logged attempt.
      const notices = ((await (await c.request("GET", "/v1/account/notices")).json()) as { notices: { message: string; delivery_id?: string }[] }).notices;
      expect(notices.filter((n) => n.delivery_id === id).map((n) => n.message)).toEqual([
        `Delivery ${id} (payment on eth) failed after 2 attempts; last error: http 500. It can be sent again.`,
        `Delivery ${id} (payment on eth) failed after 1 attempt; last error: http 500. It can be sent again.`,
      ]);
    } finally {
      sink.respond(() => new Response("ok"));
    }
  });
});

describe("a retraction", () => {
  let rig: Rig;
  afterAll(async () => {
    await rig?.stop();
  });

  test("is marked in the log, says so on its page and links its event, whose page lists both deliveries", async () => {
    rig = await startRig();
    await ingest(rig.td, chain("0xa", 1, 3, "0xa0", { 3: [pay("0xt1")] }));
    await settled(rig);
    await ingest(rig.td, blk(3, "0xb3", "0xa2", [pay("0xt2", "2000")]));
    await settled(rig);
    const u = await signIn(rig.td, rig.client.accountId);
    const retractions = await deliveriesWithBodies(rig.td.ctx.db)
      .where("account_id", "=", rig.client.accountId)
      .where("body", "like", '%"removed":true%')
      .orderBy("id")
      .execute();
    // a3's payment and a3's block event.
    expect(retractions).toHaveLength(2);
    const payment = retractions.find((r) => r.event_type === "payment") as (typeof retractions)[number];
    const list = (await text(u, "/cabinet/deliveries")).page;
    for (const r of retractions) {
      expect(list).toContain(`<tr id="${r.id}"><td data-label="Status"><span class="badge succeeded">succeeded</span> <span class="badge retraction">retraction</span></td>`);
    }
    const page = (await text(u, `/cabinet/deliveries/${payment.id}`)).page;
    expect(page).toContain(
      `<p id="retraction">A retraction: a reorg took event <a href="/cabinet/events/${payment.event_id}"><code>${payment.event_id}</code></a> out of the chain, and this delivery tells the receiver so (<code>"removed": true</code>).</p>`,
    );
    const event = (await text(u, `/cabinet/events/${payment.event_id}`)).page;
    expect(event).toContain('<span class="badge retraction">removed</span>');
    const both = [...event.matchAll(/<a href="\/cabinet\/deliveries\/(dlv_[0-9a-f]+)">/g)].map((m) => m[1]);
    expect(both).toHaveLength(2);
    expect(both[0]).toBe(payment.id);
    expect(event).toContain(`<span class="badge retraction">retraction</span> <a href="/cabinet/deliveries/${payment.id}">`);
    // The events log marks the orphaned event where it was listed.
    expect((await text(u, "/cabinet/events?tx_hash=0xt1")).page).toContain('<td data-label="Type">payment (in) <span class="badge retraction">removed</span></td>');
  });
});
