import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../../src/accounts/accounts.ts";
import { loadConfig } from "../../src/config/load.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import { createWakeBus } from "../../src/db/wake-bus.ts";
import { enqueueDeliveries } from "../../src/delivery/outbox.ts";
import { recoverFailedDeliveries } from "../../src/webhooks/recover.ts";
import { onPostgres } from "../support/harness.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { spawnListening, writeToml } from "./fixtures.ts";
import { failedBacklog, medianGap, nextWholeSecond, perSecond, secondsOverLimit, sequenceOf } from "./throttle-support.ts";
import { postgresOnly } from "../support/postgres-only.ts";
import { setDefaultEndpoint } from "../support/endpoints.ts";

// docs/webhooks.md, docs/operations.md: a webhook's delivery rate limit holds across the daemons sharing
// one PostgreSQL database. Two `serve` processes drain one recovered backlog limited to 20 a
// second while new events keep coming; the receiver counts what arrives in each clock second.

const RATE = 20;
const SECONDS = 10;
const BACKLOG = 400;

type Daemon = Awaited<ReturnType<typeof spawnListening>>;

describe.skipIf(!onPostgres)(postgresOnly("a webhook limited to 20 a second, drained by two daemons on one PostgreSQL database"), () => {
  let dir: string;
  let ctx: Context;
  let sink: WebhookSink;
  const daemons: Daemon[] = [];
  let start = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-throttle-"));
    const config = writeToml(dir, ["[delivery]", "allow_private_targets = true"]);
    const loaded = loadConfig(config);
    if (!loaded.ok) throw new Error(loaded.error);
    ctx = await openContext(loaded.config, { env: {} });
    sink = startWebhookSink();
    const made = await createAccount(ctx, { name: "limited", credits: 1_000_000_000 });
    if (!made.ok) throw new Error(made.error);
    const accountId = made.account.id;
    const endpointId = await setDefaultEndpoint(ctx.db, accountId, { url: sink.url, enabled: true, maxRps: RATE });
    const queuedAt = Date.now() - 3_600_000;
    await failedBacklog(ctx.db, accountId, BACKLOG, queuedAt, endpointId);
    for (let i = 0; i < 2; i++) daemons.push(await spawnListening(config));
    // Recovered once both daemons run, and both told at once (as a daemon that recovered would),
    // so they claim the backlog side by side and each places its share in the one schedule.
    const bus = createWakeBus({ db: ctx.db, url: loaded.config.database.url, log: ctx.log });
    const wakeDelivery = () => bus.notify("delivery");
    const recovered = await recoverFailedDeliveries({ db: ctx.db, clock: ctx.clock, wakeDelivery }, { accountId, endpoints: "all" }, { since: Math.floor(queuedAt / 1000) });
    expect(recovered).toEqual({ ok: true, requeued: BACKLOG, more: false });
    const [first] = await sink.waitFor(1);
    // From the second whole second on: the first one also sees the two daemons start up.
    start = nextWholeSecond(first.at) + 1000;
    // Meanwhile new events keep coming, twice the limit, told to both daemons: both keep placing
    // sends in the one schedule (behind the backlog) and both send what comes due.
    let n = BACKLOG;
    while (Date.now() < start + SECONDS * 1000 + 200) {
      await ctx.db.transaction().execute((trx) =>
        enqueueDeliveries(
          trx,
          Array.from({ length: RATE }, () => ({ accountId, endpointId, kind: "event" as const, eventType: "payment", network: "eth", body: JSON.stringify({ n: n++ }), nowMs: Date.now() })),
        ),
      );
      wakeDelivery();
      await Bun.sleep(500);
    }
    await bus.close();
  }, 40_000);

  afterAll(async () => {
    for (const d of daemons) {
      d.proc.kill("SIGTERM");
      await d.proc.exited;
    }
    await sink?.stop();
    await ctx?.db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  test(`the receiver gets ${RATE} a second, not ${RATE} from each daemon`, () => {
    const counts = perSecond(sink.received, start, SECONDS);
    const total = counts.reduce((x, y) => x + y, 0);
    // The counts ride along, so a failure shows them. Never a burst: no clock second above the
    // limit, give or take a send a busy machine delayed into the next one or a short stall's
    // held-back sends (secondsOverLimit), and never more in all.
    expect({ counts, over: secondsOverLimit(counts, RATE) }).toEqual({ counts, over: [] });
    expect(total).toBeLessThanOrEqual(RATE * SECONDS * 1.1);
    // At the limit's pace between them: the typical gap between two arrivals is one slot, 1000 /
    // RATE ms (half that if each daemon kept a limit of its own). A machine that stalls lengthens a
    // few gaps, not the typical one.
    const median = medianGap(sink.received, start, SECONDS, RATE);
    expect({ counts, median, paced: Math.abs(median - 1000 / RATE) <= 1000 / RATE / 10 }).toEqual({ counts, median, paced: true });
  });

  test("both daemons sent part of it, and each delivery arrived once", async () => {
    const sent = await Promise.all(
      daemons.map(async (d) => {
        const text = await (await fetch(`${d.url}/metrics`)).text();
        return Number(/chainwatch_delivery_attempts_total\{outcome="succeeded"\} (\d+)/.exec(text)?.[1] ?? 0);
      }),
    );
    for (const n of sent) expect(n).toBeGreaterThan(0);
    const seen = sequenceOf(sink.received);
    expect(new Set(seen).size).toBe(seen.length);
  });
});
