import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import type { Db } from "../../src/db/database.ts";
import { jsonLogger } from "../../src/lib/log.ts";
import { onPostgres, startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { until } from "../support/poll.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";

// The SQLite file lives on a real 8 MiB tmpfs filled to the brim by a filler file (we mount one
// when allowed: root, as in CI's container). Where mounting is refused, the same SQLite error
// ("database or disk is full", SQLITE_FULL) comes from `PRAGMA max_page_count` pinned to the
// file's size, which the test raises again to free space. Either way the daemon meets a real full
// database, not a mock.

const W = "0x1111111111111111111111111111111111111111";
const X = "0x2222222222222222222222222222222222222222";
const FULL = { error: "Database storage full: nothing was written; retry once space is freed." };

type Disk = { dir: string; fill(db: Db): Promise<void>; free(db: Db): Promise<void>; dispose(): void; kind: string };

/** A tmpfs of 8 MiB, or a plain folder whose database is capped by max_page_count. */
function smallDisk(): Disk {
  const dir = mkdtempSync(join(tmpdir(), "chainwatch-full-"));
  const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", dir], { stderr: "pipe" }).exitCode === 0;
  const filler = join(dir, "filler");
  if (mounted)
    return {
      dir,
      kind: "tmpfs",
      async fill(db) {
        // A quiet moment after a checkpoint: the WAL is empty, so the next write needs new space.
        await sql`pragma wal_checkpoint(truncate)`.execute(db);
        const fd = openSync(filler, "w");
        try {
          for (const size of [1 << 20, 1 << 16, 1 << 12, 512]) {
            const chunk = Buffer.alloc(size, 1);
            try {
              for (;;) writeSync(fd, chunk);
            } catch (e) {
              if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e;
            }
          }
        } finally {
          closeSync(fd);
        }
      },
      async free() {
        rmSync(filler, { force: true });
      },
      dispose() {
        Bun.spawnSync(["umount", dir]);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  return {
    dir,
    kind: "max_page_count",
    async fill(db) {
      // The file may not grow, and a filler table takes the free pages inside it.
      const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(db);
      await sql.raw(`pragma max_page_count = ${rows[0].page_count}`).execute(db);
      // Creating the table may itself find no page left: the file is full already.
      if (!(await sql`create table filler (x blob)`.execute(db).then(() => true, () => false))) return;
      for (const size of [4000, 1000, 100, 1])
        for (;;) {
          const ok = await sql`insert into filler values (randomblob(${size}))`.execute(db).then(() => true, () => false);
          if (!ok) break;
        }
    },
    async free(db) {
      await sql`pragma max_page_count = 1073741823`.execute(db);
      await sql`drop table if exists filler`.execute(db);
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A block at `height` paying 1 ETH to W in `n` transactions (padding makes the batch take room). */
function block(height: number, n = 1) {
  const hex = (i: number) => i.toString(16).padStart(64, "0");
  return {
    network: "eth",
    height,
    hash: `0x${hex(height * 1000 + 1)}`,
    parent_hash: `0x${hex((height - 1) * 1000 + 1)}`,
    timestamp: 1_763_750_000 + height,
    transactions: Array.from({ length: n }, (_, i) => ({ hash: `0x${hex(height * 1000 + 100 + i)}`, from: X, to: W, value: "1000000000000000000" })),
  };
}

describe.skipIf(onPostgres)("a full disk under the SQLite file", () => {
  let disk: Disk;
  let d: TestDaemon;
  let sink: WebhookSink;
  let client: TestClient;
  const lines: { level: string; msg: string }[] = [];

  beforeAll(async () => {
    disk = smallDisk();
    sink = startWebhookSink();
    d = await startTestDaemon({
      config: { database: { url: `sqlite://${disk.dir}/chainwatch.db` }, billing: { enabled: false }, delivery: { backoff_seconds: [0] }, rate_limit: { per_key_rps: 10_000 } },
      log: jsonLogger((l) => lines.push(JSON.parse(l)), Date.now, "debug"),
    });
    client = await d.client({ slots: 1000 });
    expect((await client.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address: W })).status).toBe(201);
    expect((await client.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true })).status).toBe(200);
  });
  afterAll(async () => {
    await d?.stop();
    await sink.stop();
    disk.dispose();
  });

  const count = async (table: "blocks" | "events" | "deliveries" | "watches") =>
    Number((await d.ctx.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n);

  test("refuses writes with 503 whole, keeps the delivery in flight, and resumes by itself once space is freed", async () => {
    // Block 1's webhook is in flight (the receiver holds its answer) when the disk fills.
    let answer: (() => void) | undefined;
    const answered = new Promise<void>((r) => (answer = r));
    sink.respond(async () => {
      await answered;
      return new Response("ok");
    });
    expect((await d.ingest(block(1))).status).toBe(202);
    await sink.waitFor(1);
    await disk.fill(d.ctx.db);
    const before = { blocks: await count("blocks"), events: await count("events"), deliveries: await count("deliveries") };

    // Ingest and API writes: 503 naming the cause; reads still answer.
    const refused = await d.ingest(block(2, 50));
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual(FULL);
    // A small write may still fit in room the database file already has (max_page_count only stops
    // it growing): add watches until one needs more.
    const watchesBefore = await count("watches");
    let watch: Response | undefined;
    let added = 0;
    for (let i = 1; i <= 500 && watch?.status !== 503; i++) {
      watch = await client.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address: `0x${i.toString(16).padStart(40, "a")}` });
      expect([201, 503]).toContain(watch.status);
      if (watch.status === 201) added++;
    }
    expect(watch?.status).toBe(503);
    expect(await watch?.json()).toEqual(FULL);
    expect(await count("watches")).toBe(watchesBefore + added);
    expect((await client.request("GET", "/v1/address-watch/addresses")).status).toBe(200);
    // Nothing of the refused batch is stored.
    expect({ blocks: await count("blocks"), events: await count("events"), deliveries: await count("deliveries") }).toEqual(before);

    // The receiver answers while the disk is full: the settlement cannot be written and is tried again.
    // (Capped by max_page_count instead, the small settlement may fit in pages the file has.)
    answer?.();
    if (disk.kind === "tmpfs") await until(async () => lines.filter((l) => l.msg === "delivery outcomes not recorded / claim failed").length, (n) => n >= 1);
    expect((await d.ingest(block(2, 50))).status).toBe(503);

    const freedAt = performance.now();
    await disk.free(d.ctx.db);
    const first = await until(
      () => d.ctx.db.selectFrom("deliveries").select(["status", "attempts"]).where("event_type", "=", "payment").execute(),
      (rs) => rs.length === 1 && rs[0].status === "succeeded",
    );
    const recoveredMs = performance.now() - freedAt;
    expect(first[0].attempts).toBe(1);

    // The same batch goes through now, and its webhooks go out.
    const accepted = await d.ingest(block(2, 50));
    expect(accepted.status).toBe(202);
    expect(await accepted.json()).toEqual({ blocks: 1, events: 51 });
    await until(
      () => d.ctx.db.selectFrom("deliveries").select("status").where("status", "!=", "succeeded").execute(),
      (rs) => rs.length === 0,
    );
    // Every webhook reached the receiver exactly once: block 1's payment and block event, block 2's.
    const ids = sink.received.map((r) => r.headers["x-webhook-id"]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(await count("deliveries"));

    // Logged once when it filled, once when writes went through again, however many writes failed
    // in between. (Capped by max_page_count, a small write that fits between two refused ones is a
    // change of state too: the lines then alternate.)
    const changes = lines.filter((l) => l.msg.startsWith("database storage")).map((l) => l.msg);
    if (disk.kind === "tmpfs") expect(changes).toEqual(["database storage full; writes are refused until space is freed", "database storage writable again"]);
    else expect(changes.every((m, i) => m.includes(i % 2 === 0 ? "full" : "writable")) && changes.length % 2 === 0).toBe(true);
    console.log(`full disk (${disk.kind}): recovered ${Math.round(recoveredMs)} ms after space was freed; ${ids.length} webhooks, 0 duplicated`);
  });
});
