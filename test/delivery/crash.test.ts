import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../../src/accounts/accounts.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import { enqueueDelivery } from "../../src/delivery/outbox.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { spawnServe, until, writeToml } from "./fixtures.ts";
import { setDefaultEndpoint } from "../support/endpoints.ts";

const TOTAL = 1000;
const CONCURRENCY = 16;
// The first daemon's first ANSWERED requests are answered; every later one is held open (until its
// timeout_ms, then retried and held again), so from then on every slot is taken by a send that never
// completes: the kill lands mid-flight by construction, not by timing.
const ANSWERED = 100;
let dir: string;
let config: string;
let ctx: Context;
let sink: WebhookSink;
const daemons: Subprocess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-crash-"));
  sink = startWebhookSink();
  config = writeToml(dir, [
    "[delivery]",
    "allow_private_targets = true",
    "interval_seconds = 1",
    "timeout_ms = 1000",
    `concurrency = ${CONCURRENCY}`,
    "lease_seconds = 2",
    "backoff_seconds = [0]",
    "[billing]",
    "enabled = false",
  ]);
  const loaded = loadConfig(config);
  if (!loaded.ok) throw new Error(loaded.error);
  ctx = await openContext(loaded.config, { env: {} });
});
afterAll(async () => {
  for (const p of daemons) {
    if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
    await p.exited;
  }
  await ctx.db.destroy();
  await sink.stop();
  rmSync(dir, { recursive: true, force: true });
});

test(
  "every queued delivery arrives at least once when the daemon is SIGKILLed mid-flight and restarted",
  async () => {
    const made = await createAccount(ctx, { name: "crashy" });
    if (!made.ok) throw new Error(made.error);
    const accountId = made.account.id;
    const endpointId = await setDefaultEndpoint(ctx.db, accountId, { url: sink.url, enabled: true });

    const held: (() => void)[] = [];
    sink.respond((_req, i) =>
      i < ANSWERED ? new Response("ok") : new Promise<Response>((resolve) => held.push(() => resolve(new Response("ok")))),
    );
    const first = await spawnServe(config);
    daemons.push(first);
    const ids = await ctx.db.transaction().execute(async (trx) => {
      const out: string[] = [];
      for (let i = 0; i < TOTAL; i++)
        out.push(await enqueueDelivery(trx, { accountId, endpointId, kind: "event", eventType: "payment", network: "eth", body: `{"n":${i}}`, nowMs: Date.now() }));
      return out;
    });

    // Every slot is taken by a held request: the pass can send nothing more until one answers.
    await sink.waitFor(ANSWERED + CONCURRENCY, 30_000);
    first.kill("SIGKILL");
    await first.exited;
    expect(first.signalCode).toBe("SIGKILL");
    sink.respond(() => new Response("ok"));
    for (const release of held) release();

    // The kill landed mid-flight: rows are leased with no outcome, and many were never sent.
    const leased = await ctx.db
      .selectFrom("deliveries")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("status", "=", "pending")
      .where("lease_until", "is not", null)
      .executeTakeFirstOrThrow();
    expect(Number(leased.n)).toBeGreaterThan(0);
    const arrivedBeforeKill = new Set(sink.received.map((r) => r.headers["x-webhook-id"])).size;
    expect(arrivedBeforeKill).toBeGreaterThanOrEqual(ANSWERED + CONCURRENCY);
    expect(arrivedBeforeKill).toBeLessThan(TOTAL);

    const second = await spawnServe(config);
    daemons.push(second);
    await until(
      async () => new Set(sink.received.map((r) => r.headers["x-webhook-id"])).size,
      (n) => n === TOTAL,
      30_000,
    );
    const arrived = new Set(sink.received.map((r) => r.headers["x-webhook-id"]));
    expect(ids.every((id) => arrived.has(id))).toBe(true);
    await until(
      async () =>
        Number(
          (
            await ctx.db
              .selectFrom("deliveries")
              .select((eb) => eb.fn.countAll<number>().as("n"))
              .where("status", "=", "succeeded")
              .executeTakeFirstOrThrow()
          ).n,
        ),
      (n) => n === TOTAL,
      15_000,
    );

    second.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  },
  60_000,
);
