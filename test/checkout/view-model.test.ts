import { describe, expect, test } from "bun:test";
import { parseConfig } from "../../src/config/load.ts";
import type { NetworkConfig } from "../../src/config/schema.ts";
import { type CheckoutView, checkoutJson, checkoutView } from "../../src/checkout/view-model.ts";
import type { CheckoutOrder } from "../../src/payments/checkout-orders.ts";
import type { PaymentStatus } from "../../src/payments/lifecycle.ts";

// What the checkout page says, as a pure function of an order, its network, the tip and the time.

const loaded = parseConfig({ networks: { eth: { confirmations: 3, chain_id: 1, tokens: { "0xdac17f958d2ee523a2206206994597c13d831ec7": { symbol: "USDT", decimals: 6 } } } } }, "test");
if (!loaded.ok) throw new Error(loaded.error);
const ETH: NetworkConfig = loaded.config.networks.eth;
const ADDRESS = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed";
const NOW = 1_800_000_000_000;

function order(over: Partial<CheckoutOrder> = {}): CheckoutOrder {
  return {
    id: "pay_1",
    network: "eth",
    address: ADDRESS,
    asset: null,
    decimals: 18,
    amount_raw: "1500000000000000000",
    received_raw: "0",
    confirmed_raw: "0",
    status: "pending",
    expires_at: NOW + 600_000,
    description: "Order 7",
    redirect_url: "https://shop.example/7",
    unconfirmed_height: null,
    ...over,
  };
}
const view = (over: Partial<CheckoutOrder> = {}, tip: number | null = 100, now = NOW) => checkoutView(order(over), "eth", ETH, tip, now);
const ETH_URI = (wei: string) => `ethereum:${ADDRESS}@1?value=${wei}`;

describe("the status in words", () => {
  test.each([
    ["pending: waiting", {}, "waiting", "Waiting for your payment", "1.5", { have: 0, need: 3 }],
    ["seen from the mempool, nothing in a block: nothing asked until the block says how much", { status: "seen" }, "seen", "Payment seen, waiting for confirmations (0 of 3)", "0", { have: 0, need: 3 }],
    ["seen in full, its block 1 deep", { status: "seen", received_raw: "1500000000000000000", unconfirmed_height: 100 }, "seen", "Payment seen, waiting for confirmations (1 of 3)", "0", { have: 1, need: 3 }],
    ["seen in full, its block 2 deep", { status: "seen", received_raw: "1500000000000000000", unconfirmed_height: 99 }, "seen", "Payment seen, waiting for confirmations (2 of 3)", "0", { have: 2, need: 3 }],
    ["seen short: the rest is due at once", { status: "seen", received_raw: "500000000000000000", unconfirmed_height: 100 }, "seen", "Payment seen, waiting for confirmations (1 of 3)", "1", { have: 1, need: 3 }],
    ["underpaid", { status: "underpaid", received_raw: "500000000000000000", confirmed_raw: "500000000000000000" }, "underpaid", "Underpaid: 1 ETH still due", "1", { have: 3, need: 3 }],
    ["underpaid, the rest in a block: seen again", { status: "underpaid", received_raw: "1500000000000000000", confirmed_raw: "500000000000000000", unconfirmed_height: 100 }, "seen", "Payment seen, waiting for confirmations (1 of 3)", "0", { have: 1, need: 3 }],
    ["screening: seen, all confirmations, never a word of it", { status: "aml_check", received_raw: "1500000000000000000", confirmed_raw: "1500000000000000000" }, "seen", "Payment confirmed, finishing up", "0", { have: 3, need: 3 }],
    ["paid", { status: "paid", received_raw: "1500000000000000000", confirmed_raw: "1500000000000000000" }, "paid", "Paid. Thank you!", "0", { have: 3, need: 3 }],
    ["failed: contact the shop", { status: "failed", received_raw: "1500000000000000000", confirmed_raw: "1500000000000000000" }, "failed", "This payment could not be completed", "0", { have: 3, need: 3 }],
    ["expired", { status: "expired", expires_at: NOW - 1 }, "expired", "This payment request has expired", "0", { have: 0, need: 3 }],
  ] as [string, Partial<CheckoutOrder>, string, string, string, { have: number; need: number }][])("%s", (_name, over, status, headline, due, confirmations) => {
    const v = view(over);
    expect([v.status, v.headline, v.amountDue, v.confirmations]).toEqual([status, headline, due, confirmations]);
  });

  test("confirmations never pass what is needed, and a tip below the block (a reorg's moment) counts none", () => {
    expect(view({ status: "seen", received_raw: "1", unconfirmed_height: 10 }, 1000).confirmations).toEqual({ have: 3, need: 3 });
    expect(view({ status: "seen", received_raw: "1", unconfirmed_height: 101 }, 100).confirmations).toEqual({ have: 0, need: 3 });
    expect(view({ status: "seen", received_raw: "1", unconfirmed_height: 100 }, null).confirmations).toEqual({ have: 0, need: 3 });
  });

  test("no word of any state names screening, AML or risk", () => {
    for (const status of ["pending", "seen", "underpaid", "aml_check", "paid", "failed", "expired"] as PaymentStatus[]) {
      const v = view({ status, received_raw: status === "pending" ? "0" : "1500000000000000000" });
      expect(`${v.headline} ${v.details.join(" ")} ${JSON.stringify(checkoutJson(v))}`).not.toMatch(/aml|screen|risk|sanction/i);
    }
  });

  test("failed sends the payer to the shop", () => {
    expect(view({ status: "failed" }).details).toEqual(["Please contact the shop about this order."]);
  });
});

describe("what the payer is asked to pay", () => {
  test("the whole amount while nothing arrived; the rest, and its own request, when short", () => {
    expect(view().paymentUri).toBe(ETH_URI("1500000000000000000"));
    const short = view({ status: "underpaid", received_raw: "500000000000000001", confirmed_raw: "500000000000000001" });
    expect([short.amountDue, short.paymentUri]).toEqual(["0.999999999999999999", ETH_URI("999999999999999999")]);
  });

  test("nothing once everything arrived or the order is final", () => {
    for (const over of [
      { status: "seen", received_raw: "1500000000000000000" },
      { status: "seen", received_raw: "2000000000000000000" },
      { status: "aml_check" },
      { status: "paid" },
      { status: "failed" },
      { status: "expired" },
    ] as Partial<CheckoutOrder>[])
      expect([view(over).amountDue, view(over).paymentUri]).toEqual(["0", null]);
  });

  test("a token order asks for the token by its symbol, with a transfer request", () => {
    const v = view({ asset: "0xdac17f958d2ee523a2206206994597c13d831ec7", decimals: 6, amount_raw: "25000000" });
    expect([v.unit, v.amount, v.paymentUri]).toEqual(["USDT", "25", `ethereum:0xdac17f958d2ee523a2206206994597c13d831ec7@1/transfer?address=${ADDRESS}&uint256=25000000`]);
    expect(view({ asset: "0x1111111111111111111111111111111111111111", decimals: 0, amount_raw: "3" }).unit).toBe("tokens");
  });

  test("the clock matters while money is still to come, and counts down to 0", () => {
    expect([view().deadlineApplies, view().secondsLeft]).toEqual([true, 600]);
    expect(view({}, 100, NOW + 599_001).secondsLeft).toBe(1);
    expect(view({}, 100, NOW + 700_000).secondsLeft).toBe(0);
    expect(view({ status: "seen", received_raw: "1500000000000000000" }).deadlineApplies).toBe(false);
    expect(view({ status: "seen", received_raw: "1" }).deadlineApplies).toBe(true);
    expect(view({ status: "paid" }).deadlineApplies).toBe(false);
  });
});

describe("the way back to the shop and the JSON", () => {
  test("redirect_url only once final", () => {
    const shown = (over: Partial<CheckoutOrder>) => view(over).redirectUrl;
    expect([shown({}), shown({ status: "seen" }), shown({ status: "aml_check" })]).toEqual([null, null, null]);
    expect([shown({ status: "paid" }), shown({ status: "failed" }), shown({ status: "expired" })]).toEqual(Array(3).fill("https://shop.example/7"));
    expect(shown({ status: "paid", redirect_url: null })).toBe(null);
  });

  test("the JSON has exactly the documented keys, in order", () => {
    const v: CheckoutView = view({ status: "underpaid", received_raw: "500000000000000000", confirmed_raw: "500000000000000000" });
    expect(checkoutJson(v)).toEqual({
      status: "underpaid",
      amount: "1.5",
      amount_due: "1",
      asset: null,
      network: "eth",
      address: ADDRESS,
      expires_at: "2027-01-15T08:10:00.000+00:00",
      payment_uri: ETH_URI("1000000000000000000"),
      confirmations: { have: 3, need: 3 },
      redirect_url: null,
    });
    expect(Object.keys(checkoutJson(v))).toEqual(["status", "amount", "amount_due", "asset", "network", "address", "expires_at", "payment_uri", "confirmations", "redirect_url"]);
  });
});
