import { describe, expect, test } from "bun:test";
import { deliveryPrice } from "../../src/billing/pricing.ts";
import { parseConfig } from "../../src/config/load.ts";

function config(raw: Record<string, unknown>) {
  const r = parseConfig(raw, null);
  if (!r.ok) throw new Error(r.error);
  return r.config;
}

const priced = config({
  environment: "sandbox",
  billing: { rates: { sandbox: { address_activity: 5, payments: 10 } } },
  networks: { eth: { family: "evm", get_block_cost: 20 }, btc: { family: "btc", get_block_cost: 50 } },
});

describe("the price of a delivery (docs/webhooks.md)", () => {
  test.each([
    ["event", "payment", "eth", 5],
    ["event", "payout", "eth", 5],
    ["event", "other", "btc", 5],
    ["event", "block", "eth", 20],
    ["event", "block", "btc", 50],
    ["payment", "payment_order", "eth", 10],
    ["test", "payment", "eth", 0],
    ["test", "block", "eth", 0],
    ["test", "payment_order", "eth", 0],
  ])("a %s delivery of type %s on %s costs %d credits in the environment's rates", (kind, event_type, network, price) => {
    expect(deliveryPrice(priced, { kind, event_type, network })).toBe(price);
  });

  test("nothing costs anything with billing disabled", () => {
    const free = config({ billing: { enabled: false } });
    expect(deliveryPrice(free, { kind: "event", event_type: "payment", network: "eth" })).toBe(0);
    expect(deliveryPrice(free, { kind: "event", event_type: "block", network: "eth" })).toBe(0);
  });
});
