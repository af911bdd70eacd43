import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../../src/accounts/accounts.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { enqueueDelivery } from "../../src/delivery/outbox.ts";
import { MAX_READY_DEPTH } from "../../src/delivery/pass.ts";
import { runCli, spawnServe, writeToml } from "../delivery/fixtures.ts";
import { onPostgres } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { postgresOnly } from "../support/postgres-only.ts";
import { setDefaultEndpoint } from "../support/endpoints.ts";

// docs/operations.md: several `serve` processes on one PostgreSQL database. Real subprocesses, a real
// receiver, SIGKILL for the crash. PostgreSQL only: SQLite is one daemon by design.

const DAEMONS = 3;
const CONCURRENCY = 16;

describe.skipIf(!onPostgres)(postgresOnly("three daemons on one PostgreSQL database"), () => {
  let dir: string;
  let config: string;
  let ctx: Context;
  let sink: WebhookSink;
  let accountId: string;
  let endpointId: string;
  const procs: ReturnType<typeof Bun.spawn>[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-daemons-"));
    // Short lease so a killed daemon's claims come back quickly; retries at once.
    config = writeToml(dir, [
      "[delivery]",
      "allow_private_targets = true",
      "lease_seconds = 3",
      "timeout_ms = 2000",
      "interval_seconds = 1",
      `concurrency = ${CONCURRENCY}`,
      "backoff_seconds = [1]",
      "[billing]",
      "enabled = false",
    ]);
    const loaded = loadConfig(config);
    if (!loaded.ok) throw new Error(loaded.error);
    ctx = await openContext(loaded.config, { env: {} });
    sink = startWebhookSink();
    const made = await createAccount(ctx, { name: "many" });
    if (!made.ok) throw new Error(made.error);
    accountId = made.account.id;
    endpointId = await setDefaultEndpoint(ctx.db, accountId, { url: sink.url, enabled: true });
  });

  afterAll(async () => {
    for (const p of procs) {
      p.kill("SIGTERM");
      await p.exited;
    }
    await sink.stop();
    await ctx.db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  async function enqueue(n: number): Promise<Set<string>> {
    const ids = new Set<string>();
    const nowMs = Date.now();
    await ctx.db.transaction().execute(async (trx) => {
      for (let i = 0; i < n; i++)
        ids.add(await enqueueDelivery(trx, { accountId, endpointId, kind: "event", eventType: "payment", network: "eth", body: `{"n":${i}}`, nowMs }));
    });
    return ids;
  }

  const received = (from: number) => sink.received.slice(from).map((r) => r.headers["webhook-id"]);

  it("three daemons migrating at once apply every migration exactly once", async () => {
    const fresh = mkdtempSync(join(tmpdir(), "chainwatch-migrate-"));
    const toml = writeToml(fresh);
    const runs = await Promise.all(Array.from({ length: DAEMONS }, () => runCli(["migrate", "--config", toml])));
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0]);
    const loaded = loadConfig(toml);
    if (!loaded.ok) throw new Error(loaded.error);
    const other = await openContext(loaded.config, { env: {} });
    const rows = await other.db.selectFrom("kysely_migration" as any).select("name").execute();
    await other.db.destroy();
    rmSync(fresh, { recursive: true, force: true });
    expect(rows.map((r: any) => r.name).sort()).toEqual(Object.keys(migrations).sort());
  });

  it("2,000 deliveries arrive each exactly once across three daemons", async () => {
    for (let i = 0; i < DAEMONS; i++) procs.push(await spawnServe(config));
    const ids = await enqueue(2000);
    await sink.waitFor(2000, 60_000);
    const got = received(0);
    expect(got.length).toBe(2000);
    expect(new Set(got)).toEqual(ids);
  }, 90_000);

  it("SIGKILL of one daemon mid-way loses no delivery; duplicates only from what it sent and had not recorded", async () => {
    const start = sink.received.length;
    const ids = await enqueue(2000);
    await sink.waitFor(start + 500, 60_000);
    const victim = procs.shift() as ReturnType<typeof Bun.spawn>;
    victim.kill("SIGKILL");
    await victim.exited;
    // Every id arrives; the killed daemon's leased rows go out again once their lease runs out.
    for (;;) {
      const unique = new Set(received(start));
      if ([...ids].every((id) => unique.has(id))) break;
      await sink.waitFor(sink.received.length + 1, 30_000);
    }
    const got = received(start);
    const duplicates = got.length - new Set(got).size;
    // Sent and not yet recorded at the kill (docs/operations.md): the results a commit was
    // recording, and those of the rows the daemon held claimed when it began (in flight and ready,
    // up to 1 + MAX_READY_DEPTH a slot), which kept being sent meanwhile.
    const bound = 2 * (1 + MAX_READY_DEPTH) * CONCURRENCY;
    console.log(`multi-daemon: ${duplicates} duplicate(s) after SIGKILL (bound ${bound})`);
    expect(duplicates).toBeLessThanOrEqual(bound);
    expect(new Set(got)).toEqual(ids);
  }, 120_000);
});
