import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { createAccount } from "../../src/accounts/accounts.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import type { Db } from "../../src/db/database.ts";
import type { Delivery } from "../../src/db/schema.ts";
import { createDeliveryLoop, type DeliveryLoop } from "../../src/delivery/loop.ts";
import { type DeliveryKind, deliveriesWithBodies, enqueueDelivery } from "../../src/delivery/outbox.ts";
import type { CreditReservations } from "../../src/delivery/reservations.ts";
import { VERSION } from "../../src/version.ts";
import { queuePaymentWebhook } from "../../src/webhooks/fan-out.ts";
import { createHealthWatch } from "../../src/webhooks/health-watch.ts";
import { defaultEndpointId, setDefaultEndpoint } from "../support/endpoints.ts";
import { createMetrics, type Metrics } from "../../src/lib/metrics.ts";
import type { Clock } from "../../src/lib/clock.ts";
import type { Logger } from "../../src/lib/log.ts";
import type { Resolver } from "../../src/net/target-guard.ts";
import type { Received } from "../support/webhook-sink.ts";
import { runCli as runCliInProcess } from "../../cli/run.ts";
import { CLI, cleanEnv } from "../support/cli.ts";
import { seedTestDatabase, testConfig, testDatabaseUrl } from "../support/harness.ts";

export { CLI, cleanEnv };
// The one poll helper, re-exported for the many tests that import it from here.
export { until } from "../support/poll.ts";

type Json = Record<string, unknown>;

/** The delivery loop over a real SQLite file, without the HTTP server or the cron: tests drive it with wake() and idle(). */
export type Engine = {
  ctx: Context;
  loop: DeliveryLoop;
  metrics: Metrics;
  /** Creates an account whose webhook (its default endpoint) points at `url`; returns its id, `whsec_` secret and default endpoint's id. */
  account(opts: { url?: string | null; enabled?: boolean; paymentsUrl?: string | null; credits?: number }): Promise<{ id: string; secret: string; endpointId: string }>;
  /**
   * Queues one outbox row, due now: to the account's default endpoint, or for a payment-order
   * webhook where the account's settings send it (webhooks/fan-out.ts; the first row's id).
   */
  queue(accountId: string, opts?: Partial<{ kind: DeliveryKind; eventType: string; network: string; body: string; paymentId: string; sequence: number }>): Promise<string>;
  /** Wakes the loop and waits until the pass (and any pass it scheduled) is over. */
  run(): Promise<void>;
  delivery(id: string): Promise<Delivery>;
  attempts(id: string): Promise<{ attempt: number; url: string | null; status_code: number | null; error: string | null; response_snippet: string | null; duration_ms: number }[]>;
  close(): Promise<void>;
};

let n = 0;

export async function openEngine(
  opts: { config?: Json; clock?: Clock; resolveHost?: Resolver; reservations?: CreditReservations; log?: Logger } = {},
): Promise<Engine> {
  const dir = mkdtempSync(join(tmpdir(), "chainwatch-delivery-"));
  const config = testConfig(dir, opts.config ?? {});
  await seedTestDatabase(dir, config);
  const ctx = await openContext(config, { clock: opts.clock, log: opts.log, env: {} });
  const metrics = createMetrics();
  const loop = createDeliveryLoop({
    ...ctx,
    metrics,
    fetch,
    resolveHost: opts.resolveHost ?? (async () => ["127.0.0.1"]),
    userAgent: `chainwatch/${VERSION}`,
    reservations: opts.reservations,
    endpoints: createHealthWatch({ db: ctx.db, log: ctx.log, metrics, disableAfterHours: config.delivery.disable_after_hours }),
  });
  return {
    ctx,
    loop,
    metrics,
    async account(o) {
      const made = await createAccount(ctx, { name: `acct${++n}`, credits: o.credits ?? 0 });
      if (!made.ok) throw new Error(made.error);
      const endpointId = await setDefaultEndpoint(ctx.db, made.account.id, { url: o.url ?? null, enabled: o.enabled !== false });
      await ctx.db.updateTable("accounts").set({ payments_webhook_url: o.paymentsUrl ?? null }).where("id", "=", made.account.id).execute();
      return { id: made.account.id, secret: made.webhookSecret as string, endpointId };
    },
    async queue(accountId, q = {}) {
      const row = {
        accountId,
        network: q.network ?? "eth",
        paymentId: q.paymentId ?? null,
        sequence: q.sequence ?? null,
        body: q.body ?? JSON.stringify({ id: `evt_${++n}`, type: q.eventType ?? "payment", network: q.network ?? "eth" }),
        nowMs: ctx.clock.now(),
      };
      if (q.kind === "payment") {
        const account = await ctx.db.selectFrom("accounts").select("payments_webhook_url").where("id", "=", accountId).executeTakeFirstOrThrow();
        return (await queuePaymentWebhook(ctx.db, row, account.payments_webhook_url !== null))[0];
      }
      return enqueueDelivery(ctx.db, { ...row, endpointId: await defaultEndpointId(ctx.db, accountId), kind: q.kind ?? "event", eventType: q.eventType ?? "payment" });
    },
    async run() {
      loop.wake();
      await loop.idle();
    },
    delivery: (id) => deliveriesWithBodies(ctx.db).where("id", "=", id).executeTakeFirstOrThrow(),
    attempts: (id) =>
      ctx.db
        .selectFrom("delivery_attempts")
        .select(["attempt", "url", "status_code", "error", "response_snippet", "duration_ms"])
        .where("delivery_id", "=", id)
        .orderBy("attempt")
        .execute(),
    async close() {
      await loop.stop();
      await ctx.db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Checks X-Signature the way a receiver would: node:crypto over `<X-Timestamp>.<raw body>` with the decoded whsec_ key. */
export function expectedXSignature(secret: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  return createHmac("sha256", key).update(`${timestamp}.${body}`).digest("hex");
}

/** Verifies the Standard Webhooks headers with the reference `standardwebhooks` package; throws when invalid. */
export function verifyStandardWebhook(secret: string, r: Received): unknown {
  return new Webhook(secret).verify(r.body, {
    "webhook-id": r.headers["webhook-id"],
    "webhook-timestamp": r.headers["webhook-timestamp"],
    "webhook-signature": r.headers["webhook-signature"],
  });
}

export type { Db };

/** Writes a chainwatch.toml for a subprocess daemon or CLI over `dir`, with extra TOML lines appended. */
export function writeToml(dir: string, extra: string[] = []): string {
  const path = join(dir, "chainwatch.toml");
  const lines = [
    "[server]",
    'host = "127.0.0.1"',
    "port = 0",
    "[database]",
    `url = "${testDatabaseUrl(dir)}"`,
    "[secrets]",
    `master_key_file = "${dir}/master.key"`,
    ...extra,
    "",
  ];
  writeFileSync(path, lines.join("\n"));
  return path;
}

/**
 * Runs one CLI command to completion, in this process: the same entry point the binary runs
 * (cli/run.ts), with its output collected and the clean environment a spawned CLI gets. Spawning a
 * CLI process for each of the suite's few hundred commands cost about a third of its CPU; the
 * tests that prove the binary itself (test/cli/usage, first-run, round-trip, the ingest CLI, and
 * every `serve`) still spawn it.
 */
export async function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io = {
    stdout: { write: (text: string) => void (stdout += text) },
    stderr: { write: (text: string) => void (stderr += text) },
    env: cleanEnv(),
  };
  const code = await runCliInProcess(args, io);
  return { code, stdout, stderr };
}

/** Starts `serve` as a subprocess and resolves once it logs that it is listening. */
export async function spawnServe(configPath: string) {
  return (await spawnListening(configPath)).proc;
}

/** Starts `serve` as a subprocess; resolves with it and the URL it logged it listens on (no trailing slash). */
export async function spawnListening(configPath: string) {
  const proc = Bun.spawn([process.execPath, CLI, "serve", "--config", configPath], {
    env: cleanEnv(),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let log = "";
  const deadline = Date.now() + 15_000;
  let listening: string | undefined;
  while (!listening) {
    if (Date.now() > deadline) throw new Error(`serve did not start: ${log}`);
    const { done, value } = await reader.read();
    if (done) throw new Error(`serve exited: ${log}${await new Response(proc.stderr).text()}`);
    log += decoder.decode(value);
    // Complete lines only (the last piece may be half a line).
    listening = log.split("\n").slice(0, -1).find((l) => l.includes('"msg":"listening"'));
  }
  // Keep draining stdout so the daemon never blocks on a full pipe.
  (async () => {
    for (;;) {
      const { done } = await reader.read().catch(() => ({ done: true }));
      if (done) break;
    }
  })();
  return { proc, url: (JSON.parse(listening).url as string).replace(/\/$/, "") };
}
