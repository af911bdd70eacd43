import { afterAll, beforeAll, expect, test } from "bun:test";
import { jsonLogger } from "../../src/lib/log.ts";
import { manualClock } from "../support/clock.ts";
import { startTestDaemon, type TestDaemon } from "../support/harness.ts";
import { until } from "../support/poll.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { bodies, createOrder, freshAddress, readOrder, setPaymentWebhook } from "./support.ts";

// Payment expiry when the daemon's wall clock steps: the manual clock steps its wall reading alone,
// as an operator or NTP setting the clock would, while its monotonic reading stays.

const clock = manualClock();
const lines: string[] = [];
let td: TestDaemon;
let sink: WebhookSink;

/** Waits until the expiry worker has run after the `n`th step of the clock (it says so once per step). */
const untilSteps = (n: number) =>
  until(
    async () => lines.filter((l) => l.includes("wall clock stepped")).length,
    (seen) => seen >= n,
  );

beforeAll(async () => {
  td = await startTestDaemon({ clock, log: jsonLogger((line) => void lines.push(line)), config: { networks: { eth: { family: "evm", decimals: 18, confirmations: 2 } } } });
  sink = startWebhookSink();
});

afterAll(async () => {
  await td.stop();
  sink.stop();
});

test("a wall clock stepped an hour forward expires no order early; one stepped back holds none an hour late", async () => {
  const c = await td.client({ credits: 1_000_000 });
  await setPaymentWebhook(c, sink.url);
  const order = await createOrder(c, { order_id: "inv-step", network: "eth", address: freshAddress(), amount: "1", expires_in_seconds: 60 });

  clock.step(3_600_000);
  await untilSteps(1);
  const stepLine = JSON.parse(lines.find((l) => l.includes("wall clock stepped")) as string);
  expect(stepLine).toMatchObject({ level: "warn", step_ms: 3_600_000 });
  expect((await readOrder(c, order.payment_id)).status).toBe("pending");

  // Set right again, then an hour behind: the order still waits its minute, no more.
  clock.step(-3_600_000);
  await untilSteps(2);
  clock.step(-3_600_000);
  await untilSteps(3);
  expect((await readOrder(c, order.payment_id)).status).toBe("pending");
  clock.advance(61_000);
  const [expired] = bodies(await sink.waitFor(1));
  expect(expired).toMatchObject({ event: "expired", payment_id: order.payment_id, status: "expired" });
});
