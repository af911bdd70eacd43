import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { manualClock } from "../support/clock.ts";
import { startTestDaemon, type TestDaemon } from "../support/harness.ts";
import { until } from "../support/poll.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { blockMaker, bodies, createOrder, freshAddress, freshTxHash, ingestOk, readOrder, setPaymentWebhook } from "./support.ts";

// The `http` AML provider against a real server on 127.0.0.1 that fails twice before answering.
// The daemon runs on a manual clock: once a failure is recorded, the test moves the clock past the
// worker's 1 s and then 2 s retry delay, and the worker's next tick retries.

const block = blockMaker("eth", 5_000);
const clock = manualClock();
let td: TestDaemon;
let sink: WebhookSink;
let provider: ReturnType<typeof Bun.serve>;
const screened: string[] = [];

beforeAll(async () => {
  provider = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      screened.push(await req.text());
      if (screened.length <= 2) return new Response("upstream down", { status: 500 });
      return Response.json({
        risk_level: "medium",
        score: 40,
        address_label: "Exchange hot wallet",
        detail_list: ["Exchange"],
        provider: "acme-aml",
        report_url: "https://aml.example/report/1",
      });
    },
  });
  sink = startWebhookSink();
  td = await startTestDaemon({
    clock,
    config: {
      networks: { eth: { family: "evm", decimals: 18, confirmations: 2 } },
      // 10 s to answer: on a loaded machine a short timeout turns an answer into one more failure,
      // a third retry the clock is never moved for, and a fourth screening.
      aml: { provider: "http", http_url: `http://127.0.0.1:${provider.port}/screen`, http_timeout_ms: 10_000, allow_private_targets: true },
    },
  });
});
afterAll(async () => {
  await td.stop();
  await sink.stop();
  await provider.stop(true);
});

describe("the http AML provider", () => {
  test(
    "is retried after 500s until it answers, then the order is paid with its result",
    async () => {
      const c = await td.client({ credits: 1_000_000 });
      await setPaymentWebhook(c, sink.url);
      const address = freshAddress();
      const sender = freshAddress("5");
      const tx = freshTxHash();
      const order = await createOrder(c, { order_id: "inv-http", network: "eth", address, amount: "2" });
      await ingestOk(td, block([{ hash: tx, from: sender, to: address, value: "2000000000000000000" }]));
      await ingestOk(td, block());

      // Each failure is stored with its retry time and the lease released; then its delay passes.
      const job = () => td.ctx.db.selectFrom("aml_jobs").select(["attempts", "lease_until"]).executeTakeFirstOrThrow();
      for (const [attempts, delayMs] of [
        [1, 1_000],
        [2, 2_000],
      ]) {
        await until(job, (j) => Number(j.attempts) === attempts && j.lease_until === null);
        clock.advance(delayMs);
      }
      const all = bodies(await sink.waitFor(3, 15_000));
      expect(all.map((b) => b.event)).toEqual(["seen", "aml_check", "paid"]);
      // Two failures and one answer, each asking about the sender of the completing transaction.
      expect(screened).toEqual(Array(3).fill(JSON.stringify({ network: "eth", address: sender, tx_hash: tx })));
      const aml = all[2].aml;
      expect(aml).toEqual({
        score: 40,
        risk_level: "medium",
        hacking_event: "",
        detail_list: ["Exchange"],
        risk_detail: [],
        address_label: "Exchange hot wallet",
        checked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/),
      });
      expect(await readOrder(c, order.payment_id)).toMatchObject({ status: "paid", aml });
      expect(await td.ctx.db.selectFrom("aml_jobs").selectAll().execute()).toEqual([]);
    },
    20_000,
  );
});
