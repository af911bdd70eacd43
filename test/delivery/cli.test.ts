import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../../src/accounts/accounts.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import { enqueueDelivery } from "../../src/delivery/outbox.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { runCli, spawnServe, until, writeToml } from "./fixtures.ts";
import { setDefaultEndpoint } from "../support/endpoints.ts";

let dir: string;
let config: string;
let ctx: Context;
let sink: WebhookSink;
let serve: Subprocess | undefined;
let accountId: string;
let endpointId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-delivery-cli-"));
  sink = startWebhookSink();
  config = writeToml(dir, [
    "[delivery]",
    "allow_private_targets = true",
    "interval_seconds = 1",
    // 10 s to answer: on a loaded machine a short timeout turns a send that should succeed at once
    // into a timeout and a second attempt.
    "timeout_ms = 10000",
    "backoff_seconds = [0]",
    "max_attempts = 2",
    "[billing]",
    "enabled = false",
  ]);
  const loaded = loadConfig(config);
  if (!loaded.ok) throw new Error(loaded.error);
  ctx = await openContext(loaded.config, { env: {} });
  const made = await createAccount(ctx, { name: "acme" });
  if (!made.ok) throw new Error(made.error);
  accountId = made.account.id;
  endpointId = await setDefaultEndpoint(ctx.db, accountId, { url: sink.url, enabled: true });
});
afterAll(async () => {
  if (serve) {
    serve.kill("SIGTERM");
    await serve.exited;
  }
  await ctx.db.destroy();
  await sink.stop();
  rmSync(dir, { recursive: true, force: true });
});

const row = (id: string) => ctx.db.selectFrom("deliveries").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

describe("chainwatch webhook test / deliveries (docs/cli.md)", () => {
  let testId: string;

  test("webhook test queues a test delivery and exits at once, without a daemon running", async () => {
    const r = await runCli(["webhook", "test", "--account", "acme", "--event", "block", "--network", "eth", "--json", "--config", config]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(["queued", "delivery_id"]);
    expect(doc.queued).toBe(true);
    expect(doc.delivery_id).toMatch(/^dlv_[0-9a-f]{24}$/);
    testId = doc.delivery_id;
    expect(await row(testId)).toMatchObject({ kind: "test", event_type: "block", network: "eth", status: "pending", attempts: 0 });
  });

  test("the daemon, another process, delivers the queued test", async () => {
    serve = await spawnServe(config);
    const received = await sink.waitFor(1);
    expect(received[0].headers["x-webhook-id"]).toBe(testId);
    expect(received[0].headers["x-webhook-test"]).toBe("true");
    await until(() => row(testId), (d) => d.status === "succeeded");
  });

  test("webhook test with an unknown event is a usage error (exit 2)", async () => {
    const r = await runCli(["webhook", "test", "--account", "acme", "--event", "transfer", "--network", "eth", "--config", config]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("chainwatch: --event must be one of payment, payout, other, block, payment_order (see --help)\n");
  });

  test("webhook test for an unknown account fails with exit 1", async () => {
    const r = await runCli(["webhook", "test", "--account", "nobody", "--event", "payment", "--network", "eth", "--config", config]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("chainwatch: no such account: nobody\n");
  });

  test("deliveries list --json shows the outbox with each delivery's attempts", async () => {
    const r = await runCli(["deliveries", "list", "--account", "acme", "--json", "--config", config]);
    expect(r.code).toBe(0);
    const { deliveries } = JSON.parse(r.stdout);
    const d = deliveries.find((x: { id: string }) => x.id === testId);
    expect(d).toMatchObject({ id: testId, account_id: accountId, kind: "test", event_type: "block", status: "succeeded", attempts: 1, last_status_code: 200, next_attempt_at: null });
    expect(d.attempt_log).toHaveLength(1);
    expect(d.attempt_log[0]).toMatchObject({ attempt: 1, url: sink.url, status_code: 200, error: null, response: "ok" });
  });

  test("deliveries list prints a table by default", async () => {
    const r = await runCli(["deliveries", "list", "--config", config]);
    expect(r.code).toBe(0);
    const [header, first] = r.stdout.trim().split("\n");
    expect(header.split(/\s+/)).toEqual(["ID", "ACCOUNT", "KIND", "EVENT", "STATUS", "ATTEMPTS", "LAST_CODE", "LAST_ERROR", "NEXT_ATTEMPT", "CREATED"]);
    expect(first.split(/\s+/).slice(0, 7)).toEqual([testId, "acme", "test", "block", "succeeded", "1", "200"]);
  });

  test("deliveries list refuses an unknown --status with exit 2", async () => {
    const r = await runCli(["deliveries", "list", "--status", "lost", "--config", config]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("chainwatch: --status must be one of pending, succeeded, failed, paused, held (see --help)\n");
  });

  test("deliveries list pages with --cursor through every delivery --count counts, newest first, each once", async () => {
    for (let i = 0; i < 3; i++) await enqueueDelivery(ctx.db, { accountId, endpointId, kind: "event", eventType: "payment", network: "eth", body: '{"type":"payment"}', nowMs: Date.now() });
    const counted = await runCli(["deliveries", "list", "--count", "--json", "--config", config]);
    expect(counted.code).toBe(0);
    const { count } = JSON.parse(counted.stdout);
    expect(count).toBeGreaterThan(1);
    const plain = await runCli(["deliveries", "list", "--count", "--config", config]);
    expect(plain.stdout).toBe(`${count}\n`);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r = await runCli(["deliveries", "list", "--limit", "1", "--json", "--config", config, ...(cursor ? ["--cursor", cursor] : [])]);
      expect(r.code).toBe(0);
      const page = JSON.parse(r.stdout);
      expect(page.deliveries).toHaveLength(1);
      seen.push(page.deliveries[0].id);
      cursor = page.next_cursor;
      if (cursor !== null) expect(cursor).toBe(page.deliveries[0].id);
    } while (cursor !== null);
    expect(seen).toHaveLength(count);
    expect(new Set(seen).size).toBe(count);
    const all = JSON.parse((await runCli(["deliveries", "list", "--limit", "1000", "--json", "--config", config])).stdout);
    expect(all.deliveries.map((d: { id: string }) => d.id)).toEqual(seen);
    expect(all.next_cursor).toBeNull();
  });

  test("deliveries list names the next page's cursor on stderr below a full table, and refuses an unknown cursor", async () => {
    const r = await runCli(["deliveries", "list", "--limit", "1", "--config", config]);
    expect(r.code).toBe(0);
    const [, first] = r.stdout.trim().split("\n");
    expect(r.stderr.split("\n")[0]).toBe(`more: --cursor ${first.split(/\s+/)[0]}`);
    const bad = await runCli(["deliveries", "list", "--cursor", "dlv_nope", "--config", config]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("chainwatch: --cursor dlv_nope is no delivery (see --help)\n");
  });

  test("deliveries retry re-queues a failed delivery, which the daemon then delivers", async () => {
    sink.respond(() => new Response("down", { status: 500 }));
    const id = await enqueueDelivery(ctx.db, { accountId, endpointId, kind: "event", eventType: "payment", network: "eth", body: '{"type":"payment"}', nowMs: Date.now() });
    await until(() => row(id), (d) => d.status === "failed", 15_000);
    expect((await row(id)).attempts).toBe(2);

    sink.respond(() => new Response("ok"));
    const r = await runCli(["deliveries", "retry", id, "--json", "--config", config]);
    expect(r.code).toBe(0);
    // A fresh retry schedule; the count is of logged attempts, and both stay in the log.
    expect(JSON.parse(r.stdout)).toMatchObject({ id, status: "pending", attempts: 2, completed_at: null });
    const d = await until(() => row(id), (x) => x.status === "succeeded", 15_000);
    expect(d.attempts).toBe(1);
  });

  test("deliveries retry of a delivery that already succeeded fails with exit 1", async () => {
    const r = await runCli(["deliveries", "retry", testId, "--config", config]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`chainwatch: delivery ${testId} already succeeded\n`);
  });

  test("deliveries retry of an unknown id fails with exit 1", async () => {
    const r = await runCli(["deliveries", "retry", "dlv_nope", "--config", config]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("chainwatch: no such delivery: dlv_nope\n");
  });
});
