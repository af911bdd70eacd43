import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findAccount } from "../../src/accounts/accounts.ts";
import { paymentWebhooks } from "../../src/delivery/outbox.ts";
import { createOrder } from "../../src/payments/create-order.ts";
import { getOrder } from "../../src/payments/orders.ts";
import { createWalletDerivers } from "../../src/payments/wallets/derivers.ts";
import { testDatabaseName } from "../support/harness.ts";
import { ingestCliConfig, rowCount, withConfigContext } from "./cli-fixture.ts";
import { CLI, cleanEnv } from "../support/cli.ts";

const W = "0x1111111111111111111111111111111111111111";
const X = "0x2222222222222222222222222222222222222222";

let dir: string;
let config: string;

async function cli(args: string[], stdin?: string) {
  const proc = Bun.spawn([process.execPath, CLI, ...args], {
    cwd: dir,
    env: cleanEnv(),
    stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

async function eventCount(): Promise<number> {
  return rowCount(config, "events");
}

const block = (height: number, hash: string) => ({ network: "eth", height, hash, transactions: [{ hash: `0xt${height}`, from: X, to: W, value: "1" }] });

describe("chainwatch ingest", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-cli-ingest-"));
    config = await ingestCliConfig(dir, W);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("feeds a batch file through the ingest service, prints the counts with --json and logs the batch on stderr as serve does", async () => {
    writeFileSync(join(dir, "batch.json"), JSON.stringify([block(1, "0xb1"), block(2, "0xb2")]));
    const r = await cli(["ingest", "batch.json", "--json", "--config", config]);
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: '{"blocks":2,"events":4}\n' });
    // The log line, then the line every command ends with (which database, which config).
    const [logged, database, ...rest] = r.stderr.split("\n");
    expect([database, rest]).toEqual([`chainwatch: database ${testDatabaseName(dir)} (config ${config} from --config)`, [""]]);
    // The daemon's `ingested` line, field for field (src/ingest/pipeline.ts).
    const line = JSON.parse(logged);
    expect(line).toEqual({ time: line.time, level: "info", msg: "ingested", networks: ["eth"], received: 2, blocks: 2, events: 4, from_height: 1, to_height: 2 });
    expect(line.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(await eventCount()).toBe(4);
  });

  it("reads the batch from stdin for - and prints a line without --json", async () => {
    const r = await cli(["--config", config, "ingest", "-"], JSON.stringify(block(3, "0xb3")));
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: "stored 1 new block(s) and 2 event(s)\n" });
    expect(r.stderr.split("\n").map((l) => (l.startsWith("{") ? JSON.parse(l).msg : l))).toEqual([
      "ingested",
      `chainwatch: database ${testDatabaseName(dir)} (config ${config} from --config)`,
      "",
    ]);
  });

  it("adds nothing for blocks already stored, and logs nothing at info", async () => {
    const r = await cli(["ingest", "batch.json", "--json", "--config", config]);
    expect(r.stdout).toBe('{"blocks":0,"events":0}\n');
    expect(r.stderr).toBe(`chainwatch: database ${testDatabaseName(dir)} (config ${config} from --config)\n`);
    expect(await eventCount()).toBe(6);
  });

  it("exits 1 with the field message for an invalid batch and stores nothing", async () => {
    const bad = [block(4, "0xb4"), { network: "eth", height: 5, hash: "0xb5", transactions: [{ from: X, to: W, value: "1" }] }];
    const r = await cli(["ingest", "-", "--config", config], JSON.stringify(bad));
    expect(r).toEqual({ code: 1, stdout: "", stderr: "chainwatch: [1].transactions[0].hash is required\n" });
    expect(await eventCount()).toBe(6);
  });

  it("exits 1 for a file that is not JSON or does not exist", async () => {
    writeFileSync(join(dir, "broken.json"), "{nope");
    const broken = await cli(["ingest", "broken.json", "--config", config]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toStartWith("chainwatch: broken.json is not valid JSON: ");
    const missing = await cli(["ingest", "missing.json", "--config", config]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toStartWith("chainwatch: cannot read missing.json: ");
  });

  it("moves a payment order that a block pays, as the daemon's ingest does", async () => {
    const orderAddress = "0x3333333333333333333333333333333333333333";
    const { accountId, paymentId } = await withConfigContext(config, async (ctx) => {
      const acme = await findAccount(ctx.db, "acme");
      if (!acme) throw new Error("no account acme");
      const created = await createOrder({ ...ctx, networks: ctx.config.networks, derivers: createWalletDerivers(ctx.box) }, acme.id, { order_id: "cli-1", network: "eth", address: orderAddress, amount: "1" });
      if (!created.ok) throw new Error(created.code);
      return { accountId: acme.id, paymentId: created.order.id };
    });
    const pays = { network: "eth", height: 4, hash: "0xb4", transactions: [{ hash: "0xt4", from: X, to: orderAddress, value: "1000000000000000000" }] };
    const r = await cli(["ingest", "-", "--json", "--config", config], JSON.stringify(pays));
    // The one event is acme's block event: the order's address takes no watch.
    expect(r.stdout).toBe('{"blocks":1,"events":1}\n');
    const after = await withConfigContext(config, async (ctx) => {
      const order = await getOrder(ctx.db, accountId, paymentId);
      const webhooks = await paymentWebhooks(ctx.db, accountId, paymentId);
      return { status: order?.status, received: order?.received_raw, tx: order?.tx_hash, webhooks: webhooks.map((w) => JSON.parse(w.body).event) };
    });
    expect(after).toEqual({ status: "seen", received: "1000000000000000000", tx: "0xt4", webhooks: ["seen"] });
  });
});
