import { findNetwork, unknownNetwork } from "../config/networks.ts";
import type { Config, Family } from "../config/schema.ts";
import type { Db } from "../db/database.ts";
import type { Account } from "../db/schema.ts";
import { formatAmount } from "../lib/amount.ts";
import { newId } from "../lib/ids.ts";
import { rfc3339 } from "../lib/time.ts";
import { chooseTarget } from "./send.ts";
import { enqueueDelivery } from "./enqueue.ts";

/** The subscriptions a test can imitate (DESIGN §1, §3). */
export const TEST_EVENTS = ["payment", "payout", "other", "block", "payment_order"] as const;
export type TestEvent = (typeof TEST_EVENTS)[number];


type Sample = { address: string; txHash: (i: number) => string; blockHash: string };

// Well-formed per family, so a receiver that validates addresses or hashes accepts a test.
const SAMPLES: Record<Family, Sample> = {
  evm: {
    address: "0x52908400098527886e0f7030069857d2e4169ee7",
    txHash: (i) => `0x${hex(i, 64)}`,
    blockHash: `0x${hex(99, 64)}`,
  },
  btc: {
    address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
    txHash: (i) => hex(i, 64),
    blockHash: `00000000000000000002${hex(99, 44)}`,
  },
  tron: {
    address: "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7",
    txHash: (i) => hex(i, 64),
    blockHash: `0000000003b2c1d0${hex(99, 48)}`,
  },
  solana: {
    address: "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T",
    txHash: (i) => `5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQU${i % 10}`,
    blockHash: "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N",
  },
  generic: {
    address: "sample-watched-address",
    txHash: (i) => `sample-tx-${i}`,
    blockHash: "sample-block-hash",
  },
};

function hex(seed: number, length: number): string {
  let out = "";
  for (let i = 0; out.length < length; i++) out += ((seed * 2654435761 + i * 40503) >>> 0).toString(16).padStart(8, "0");
  return out.slice(0, length);
}

const SAMPLE_HEIGHT = 19_000_000;

/**
 * A realistic body of one kind on one network, shaped exactly like the real thing: the flat
 * address-watch event of DESIGN §4 (with id and created_at) or a `paid` payment-order body with a
 * sample AML object (DESIGN §6).
 */
export function testPayload(event: TestEvent, network: string, family: Family, decimals: number, nowMs: number): Record<string, unknown> {
  const s = SAMPLES[family];
  const created = rfc3339(nowMs);
  if (event === "block") {
    const transactions = [s.txHash(1), s.txHash(2), s.txHash(3)];
    return {
      id: newId("evt"),
      type: "block",
      network,
      block_height: SAMPLE_HEIGHT,
      block_hash: s.blockHash,
      tx_count: transactions.length,
      transactions,
      created_at: created,
    };
  }
  const raw = event === "other" ? 0n : 15n * 10n ** BigInt(decimals) / 10n;
  if (event === "payment_order") {
    return {
      product: "payments",
      type: "payment_order",
      event: "paid",
      payment_id: newId("pay"),
      order_id: "test-order-1",
      network,
      address: s.address,
      asset: null,
      amount: formatAmount(raw, decimals),
      amount_raw: raw.toString(),
      amount_received: formatAmount(raw, decimals),
      amount_received_raw: raw.toString(),
      status: "paid",
      lifecycle: "paid",
      tx_hash: s.txHash(4),
      aml: {
        score: 12,
        risk_level: "low",
        hacking_event: "",
        detail_list: ["Exchange"],
        risk_detail: [],
        address_label: "Sample exchange wallet",
        checked_at: created,
      },
    };
  }
  return {
    id: newId("evt"),
    type: event,
    direction: event === "payout" ? "out" : "in",
    watch_id: newId("aw"),
    network,
    address: s.address,
    tx_hash: s.txHash(5),
    block_height: SAMPLE_HEIGHT,
    asset: null,
    amount: formatAmount(raw, decimals),
    amount_raw: raw.toString(),
    created_at: created,
  };
}

export type QueueTestResult = { ok: true; deliveryId: string } | { ok: false; error: string };

/**
 * Queues one test delivery (never billed, no event row) for the API's Test button and the CLI.
 * Errors are client-facing sentences naming the field. The caller wakes the loop.
 */
export async function queueTestDelivery(
  deps: { db: Db; config: Config; nowMs: number },
  account: Pick<Account, "id" | "webhook_url" | "webhook_enabled" | "payments_webhook_url">,
  input: { event: string; network: string },
): Promise<QueueTestResult> {
  if (!(TEST_EVENTS as readonly string[]).includes(input.event))
    return { ok: false, error: `event must be one of ${TEST_EVENTS.join(", ")}` };
  const net = findNetwork(deps.config.networks, input.network);
  if (!net) return { ok: false, error: unknownNetwork(input.network) };
  const event = input.event as TestEvent;
  // Refuse up front what could never be delivered; the route is still re-read at send time.
  const target = chooseTarget({ kind: "test", event_type: event }, account);
  if (!target.ok)
    return {
      ok: false,
      error: target.error === "webhook disabled" ? "Webhook is disabled and no payments webhook_url is set." : "No webhook URL configured.",
    };
  const body = JSON.stringify(testPayload(event, input.network, net.family, net.decimals, deps.nowMs));
  const deliveryId = await enqueueDelivery(deps.db, {
    accountId: account.id,
    kind: "test",
    eventType: event,
    network: input.network,
    body,
    nowMs: deps.nowMs,
  });
  return { ok: true, deliveryId };
}
