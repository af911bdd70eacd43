import type { IngestedBlock } from "../chain/block.ts";
import type { Family } from "../config/schema.ts";
import { newId } from "../lib/ids.ts";
import { rfc3339 } from "../lib/time.ts";
import { blockEventBody, walletEventBody } from "../watch/event-bodies.ts";
import { newEventId } from "../watch/events.ts";
import { hitsOf, type WatchRef } from "../watch/matcher.ts";

// The bodies of test webhooks, no I/O: each kind is built by the builder of the real thing (watch's
// event bodies, payments' order body) from sample data, so a test shows a receiver exactly what
// the real webhook will look like. Queued by test-endpoint.ts. Payments stand above this folder
// (they queue their webhooks through fan-out.ts), so their sample comes in as a function, handed
// down by the edge that queues the test (payments/sample-order.ts).

/** The subscriptions a test can imitate (docs/cli.md, docs/api.md). */
export const TEST_EVENTS = ["payment", "payout", "other", "block", "payment_order"] as const;
export type TestEvent = (typeof TEST_EVENTS)[number];

type Sample = { address: string; counterparty: string; txHash: (i: number) => string; blockHash: string };

// Well-formed per family, so a receiver that validates addresses or hashes accepts a test.
// Addresses are in matching form (matchAddress), as the block model carries them.
const SAMPLES: Record<Family, Sample> = {
  evm: {
    address: "0x52908400098527886e0f7030069857d2e4169ee7",
    counterparty: "0xde709f2102306220921060314715629080e2fb77",
    txHash: (i) => `0x${hex(i, 64)}`,
    blockHash: `0x${hex(99, 64)}`,
  },
  btc: {
    address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
    counterparty: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
    txHash: (i) => hex(i, 64),
    blockHash: `00000000000000000002${hex(99, 44)}`,
  },
  tron: {
    address: "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7",
    counterparty: "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t",
    txHash: (i) => hex(i, 64),
    blockHash: `0000000003b2c1d0${hex(99, 48)}`,
  },
  solana: {
    address: "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T",
    counterparty: "So11111111111111111111111111111111111111112",
    txHash: (i) => `5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQU${i % 10}`,
    blockHash: "EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N",
  },
  generic: {
    address: "sample-watched-address",
    counterparty: "sample-counterparty",
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

/** 1.5 in the network's native unit. */
const sampleValue = (decimals: number) => (15n * 10n ** BigInt(decimals)) / 10n;

/**
 * A block in which the sample address receives 1.5 (a payment), sends 1.5 (a payout) and is
 * named by a call that moves nothing (other), in model form as ingest builds it.
 */
function sampleBlock(network: string, family: Family, decimals: number): IngestedBlock {
  const s = SAMPLES[family];
  const value = sampleValue(decimals);
  const move = (from: string, to: string) => [{ index: 0, asset: null, from, to, value, decimals: null }];
  return {
    network,
    height: SAMPLE_HEIGHT,
    hash: s.blockHash,
    parentHash: null,
    timestamp: null,
    transactions: [
      { hash: s.txHash(1), from: s.counterparty, to: s.address, movements: move(s.counterparty, s.address) },
      { hash: s.txHash(2), from: s.address, to: s.counterparty, movements: move(s.address, s.counterparty) },
      { hash: s.txHash(3), from: s.counterparty, to: s.address, movements: [] },
    ],
  };
}

/** A sample payment-order body: the `paid` body of an order of `amountRaw` at `address`, paid by `txHash`. */
export type PaymentOrderSample = (input: { network: string; address: string; txHash: string; decimals: number; amountRaw: string; nowMs: number }) => string;

/**
 * A realistic body of one kind on one network, built by the same builders as the real thing from
 * a sample block (sampleBlock) and a sample watch: the flat address-watch event of docs/chains.md, or a
 * `paid` payment-order body with a sample AML object (docs/payments.md, `paymentOrder`).
 */
export function testPayload(event: TestEvent, network: string, family: Family, decimals: number, nowMs: number, paymentOrder: PaymentOrderSample): string {
  const createdAt = rfc3339(nowMs);
  const block = sampleBlock(network, family, decimals);
  if (event === "block") {
    const transactions = block.transactions.map((tx) => tx.hash);
    return blockEventBody({ id: newEventId(nowMs), network, height: block.height, hash: block.hash, transactions, createdAt });
  }
  const s = SAMPLES[family];
  if (event === "payment_order")
    return paymentOrder({ network, address: s.address, txHash: s.txHash(4), decimals, amountRaw: sampleValue(decimals).toString(), nowMs });
  const watch: WatchRef = { id: newId("aw"), accountId: "sample", address: s.address };
  for (const tx of block.transactions) {
    const hit = hitsOf(tx, (address) => (address === watch.address ? [watch] : undefined)).find((h) => h.type === event);
    if (!hit) continue;
    return walletEventBody({
      id: newEventId(nowMs),
      hit,
      network,
      txHash: tx.hash,
      blockHeight: block.height,
      blockHash: block.hash,
      networkDecimals: decimals,
      family,
      createdAt,
    });
  }
  throw new Error(`the sample block has no ${event} hit`);
}
