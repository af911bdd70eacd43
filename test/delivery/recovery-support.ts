import type { Delivery } from "../../src/db/schema.ts";
import type { TestClient, TestDaemon } from "../support/harness.ts";
import { until } from "./fixtures.ts";
import { deliveriesWithBodies } from "../../src/delivery/outbox.ts";

// Shared by the recover and replay tests: blocks paying watched addresses, and a daemon driven by
// a manual clock through the whole retry schedule.

/** The payer of every test transfer. */
export const X = "0x9999999999999999999999999999999999999999";

/** Block `height` of chain `b` (parent: the block below), one native transfer of 1000 wei to each of `payees`. */
export function block(height: number, payees: string[]) {
  return {
    network: "eth",
    height,
    hash: `0xb${height}`,
    parent_hash: `0xb${height - 1}`,
    timestamp: 1_763_750_000 + height,
    transactions: payees.map((to, i) => ({ hash: `0xt${height}x${i}`, from: X, to, value: "1000" })),
  };
}

/** Watches `address` on eth and points the account's webhook at `url`. */
export async function watchAndHook(c: TestClient, address: string, url: string, events?: Record<string, unknown>): Promise<void> {
  const watch = await c.request("POST", "/v1/address-watch/addresses", { network_slug: "eth", address });
  if (watch.status !== 201) throw new Error(`watch answered ${watch.status}: ${await watch.text()}`);
  const hook = await c.request("PUT", "/v1/address-watch/webhook", { url, enabled: true, ...(events ? { events } : {}) });
  if (hook.status !== 200) throw new Error(`webhook answered ${hook.status}: ${await hook.text()}`);
}

/** POSTs one block to /ingest/blocks; throws unless it is accepted. */
export async function ingest(td: TestDaemon, b: unknown): Promise<void> {
  const res = await td.ingest(b);
  if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
}

/** An account's deliveries, oldest first (creation time, then id). */
export function deliveriesOf(td: TestDaemon, accountId: string): Promise<Delivery[]> {
  return deliveriesWithBodies(td.ctx.db).where("account_id", "=", accountId).orderBy("created_at").orderBy("id").execute();
}

/**
 * Moves the daemon's manual clock through the retry schedule until every delivery of these
 * accounts has used up its attempts: waits until none is due (each attempt recorded), then jumps a
 * minute ahead and wakes the loop, again and again.
 */
export async function exhaustAttempts(td: TestDaemon, clock: { now(): number; advance(ms: number): void }, accountIds: string[]): Promise<void> {
  const rows = async () => (await Promise.all(accountIds.map((a) => deliveriesOf(td, a)))).flat();
  for (let round = 0; round < 20; round++) {
    const now = clock.now();
    const settledRows = await until(rows, (ds) => ds.every((d) => d.status === "failed" || (d.status === "pending" && d.next_attempt_at > now)));
    if (settledRows.every((d) => d.status === "failed")) return;
    clock.advance(60_000);
    td.daemon.deps.wakeDelivery();
  }
  throw new Error("deliveries did not fail within 20 rounds");
}

/** Waits until every given delivery succeeded. */
export function allSucceeded(td: TestDaemon, accountId: string, ids: readonly string[]): Promise<Delivery[]> {
  return until(
    async () => (await deliveriesOf(td, accountId)).filter((d) => ids.includes(d.id)),
    (ds) => ds.length === ids.length && ds.every((d) => d.status === "succeeded"),
  );
}
