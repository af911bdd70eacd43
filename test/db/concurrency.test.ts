import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount } from "../../src/accounts/accounts.ts";
import { setPlan } from "../../src/accounts/plans.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import { claimDueDeliveries } from "../../src/delivery/claim.ts";
import { enqueueDelivery } from "../../src/delivery/outbox.ts";
import { systemClock } from "../../src/lib/clock.ts";
import { createOrder } from "../../src/payments/create-order.ts";
import { addWatch } from "../../src/watch/watches.ts";
import { createWalletDerivers } from "../../src/payments/wallets/derivers.ts";
import { onPostgres, testConfig } from "../support/harness.ts";
import { defaultEndpointId } from "../support/endpoints.ts";

// The invariants SQLite gave for free (one writer) hold with several writers: on PostgreSQL three
// contexts (three pools) stand for three daemons and race each primitive. On SQLite one context
// races itself: a second connection in the same thread would block it (bun:sqlite waits out
// busy_timeout synchronously), and a second process is what BEGIN IMMEDIATE already serialises.

const WRITERS = 3;
let dir: string;
let writers: Context[];
let accountId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-concurrency-"));
  const config = testConfig(dir);
  writers = [];
  const first = await openContext(config, { env: {} });
  for (let i = 0; i < WRITERS; i++) writers.push(onPostgres && i > 0 ? await openContext(config, { env: {} }) : first);
  const ctx = writers[0];
  const plan = await setPlan(ctx.db, ctx.clock, { name: "race", slots: 5 });
  if (!plan.ok) throw new Error(plan.error);
  const acct = await createAccount(ctx, { name: "racer", plan: "race", credits: 0 });
  if (!acct.ok) throw new Error(acct.error);
  accountId = acct.account.id;
});

afterAll(async () => {
  for (const w of new Set(writers)) await w.db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe(`several writers on one ${onPostgres ? "PostgreSQL" : "SQLite"} database`, () => {
  it("the slot cap holds when adds race from every writer", async () => {
    const adds = Array.from({ length: 15 }, (_, i) =>
      addWatch(writers[i % WRITERS].db, { accountId, network: "eth", address: `0x${(i + 1).toString(16).padStart(40, "c")}`, now: Date.now() }),
    );
    const results = await Promise.all(adds);
    expect(results.filter((r) => r.ok && r.created).length).toBe(5);
    expect(results.filter((r) => !r.ok).length).toBe(10);
    const rows = await writers[0].db.selectFrom("watches").select("id").where("account_id", "=", accountId).execute();
    expect(rows.length).toBe(5);
  });

  it("one live order per address when creations race from every writer", async () => {
    const address = `0x${"d".repeat(40)}`;
    const deps = (w: Context) => ({ db: w.db, clock: systemClock, networks: w.config.networks, derivers: createWalletDerivers(w.box) });
    const results = await Promise.all(
      Array.from({ length: 9 }, (_, i) => createOrder(deps(writers[i % WRITERS]), accountId, { order_id: `o${i}`, network: "eth", address, amount: "1" })),
    );
    expect(results.filter((r) => r.ok).length).toBe(1);
    expect(results.filter((r) => !r.ok && r.code === "ADDRESS_BUSY").length).toBe(8);
  });

  it("each due delivery is claimed by exactly one writer", async () => {
    const nowMs = Date.now();
    const ids = new Set<string>();
    const endpointId = await defaultEndpointId(writers[0].db, accountId);
    for (let i = 0; i < 120; i++)
      ids.add(await enqueueDelivery(writers[0].db, { accountId, endpointId, kind: "test", eventType: "payment", network: "eth", body: "{}", nowMs }));
    const claimedBy = new Map<string, number>();
    let duplicates = 0;
    await Promise.all(
      writers.map(async (w, n) => {
        for (;;) {
          const { claimed } = await claimDueDeliveries(w.db, { nowMs, leaseMs: 60_000, limit: 7, priceOf: () => 0 });
          if (claimed.length === 0) return;
          for (const c of claimed) {
            if (claimedBy.has(c.id)) duplicates++;
            claimedBy.set(c.id, n);
          }
        }
      }),
    );
    expect(duplicates).toBe(0);
    expect(new Set(claimedBy.keys())).toEqual(ids);
  });
});
