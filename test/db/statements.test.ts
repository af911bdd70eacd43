import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CompiledQuery, Kysely, sql } from "kysely";
import { BunSqliteDialect } from "kysely-bun-sqlite/dist/index.js";
import { type Db, type Executor, migrate, openDatabase } from "../../src/db/database.ts";
import { isPostgres } from "../../src/db/dialect/detect.ts";
import type { NewEvent } from "../../src/db/schema.ts";
import type { PerDialect } from "../../src/db/statements.ts";
import { deliveryStatements, deliveryStatementSets } from "../../src/delivery/sql/dialects.ts";
import type { DeliveryStatements, NewAttempt, NewDelivery } from "../../src/delivery/sql/statements.ts";
import { accountStatements, accountStatementSets } from "../../src/accounts/sql/dialects.ts";
import { billingStatements, billingStatementSets } from "../../src/billing/sql/dialects.ts";
import type { BillingStatements } from "../../src/billing/sql/statements.ts";
import type { AccountStatements } from "../../src/accounts/sql/statements.ts";
import { eventStatements, eventStatementSets, watchStatements, watchStatementSets } from "../../src/watch/sql/dialects.ts";
import type { EventStatements, WatchStatements } from "../../src/watch/sql/statements.ts";
import { endpointHealthStatements, endpointHealthStatementSets } from "../../src/webhooks/sql/dialects.ts";
import type { EndpointHealthStatements } from "../../src/webhooks/sql/statements.ts";
import { chainStatements, chainStatementSets } from "../../src/ingest/sql/dialects.ts";
import type { ChainStatements, NewOutput } from "../../src/ingest/sql/statements.ts";
import { paymentStatements, paymentStatementSets } from "../../src/payments/sql/dialects.ts";
import type { PaymentStatements } from "../../src/payments/sql/statements.ts";
import type { Payment } from "../../src/db/schema.ts";
import { onPostgres, testDatabaseUrl } from "../support/harness.ts";

// Each folder writes its hot-path statements out in each dialect's own SQL (`<folder>/sql/`).
// Nothing translates them, so these tests hold each text to its dialect: placeholders that match
// the parameters, and every statement accepted by the engine it is written for.

const ids = (n: number) => Array.from({ length: n }, (_, i) => `dlv_${i}`);
const attempts = (n: number): NewAttempt[] =>
  ids(n).map((deliveryId) => ({ deliveryId, attempt: 1, url: "https://example.com/hook", startedAt: 1, durationMs: 2, statusCode: 200, error: null, snippet: "ok" }));
const events = (n: number): NewEvent[] =>
  ids(n).map((id, i) => ({ id, account_id: "acc_1", type: "payment", network: "eth", watch_id: null, dedupe_key: `k${i}`, body: "{}", created_at: 1, block_height: 7, block_hash: null }));
const outputs = (n: number): NewOutput[] =>
  ids(n).map((txid, vout) => ({ network: "btc", txid, vout, address: "bc1q", value_raw: "1000", block_hash: "blk_1", height: 7 }));
const newOrder: Payment = {
  id: "pay_1", account_id: "acc_1", order_id: "o-1", network: "eth", address: "0xabc", asset: null, decimals: 18, amount_raw: "1000", received_raw: "0",
  confirmed_raw: "0", status: "pending", tx_hash: null, expires_at: 2000, aml: null, created_at: 1000, updated_at: 1000, wallet_id: null,
  derivation_index: null, checkout_token: "tok", checkout_key: "key", description: null, redirect_url: null,
};
const usage = (n: number) => ids(n).map((accountId) => ({ accountId, credits: 1, deliveries: 1, events: 0 }));

/** Samples of a set of statements: each statement with sample arguments; those over a list at one and at three items. */
type Samples<S> = Record<keyof S, (s: S) => CompiledQuery[]>;

/** A folder's statements: both dialects' sets, the picker its code calls, and the samples. */
type Suite<S> = { folder: string; sets: PerDialect<S>; of: (db: Executor) => S; samples: Samples<S> };

const suite = <S>(s: Suite<S>) => s as Suite<unknown>;

const outboxRows = (n: number): NewDelivery[] =>
  ids(n).map((id, i) => ({
    id, account_id: "acc_1", endpoint_id: i === 0 ? null : "ep_1", kind: "event", event_type: "payment", network: "eth", event_id: "evt_1", payment_id: null,
    sequence: null, body: "{}", status: i === 0 ? "held" : "pending", hold_until_height: i === 0 ? 9 : null, attempts: 0, next_attempt_at: 1000, lease_until: null,
    last_status_code: null, last_error: null, credits_charged: 0, created_at: 1000, updated_at: 1000, completed_at: null, replay: 0,
  }));

const deliverySamples: Samples<DeliveryStatements> = {
  insertDeliveries: (s) => [s.insertDeliveries(outboxRows(1)), s.insertDeliveries(outboxRows(3))],
  insertBodies: (s) => [s.insertBodies(outboxRows(1)), s.insertBodies(outboxRows(3))],
  selectDueDeliveries: (s) => [s.selectDueDeliveries(1000, 64, false), s.selectDueDeliveries(1000, 64, true)],
  selectNewestDueDeliveries: (s) => [s.selectNewestDueDeliveries(900, 1000, 32)],
  selectClaimAccounts: (s) => [s.selectClaimAccounts(["acc_1"]), s.selectClaimAccounts(["acc_1", "acc_2", "acc_3"])],
  selectClaimEndpoints: (s) => [s.selectClaimEndpoints(["ep_1"]), s.selectClaimEndpoints(["ep_1", "ep_2", "ep_3"])],
  leaseDeliveries: (s) => [s.leaseDeliveries(ids(1), 2000), s.leaseDeliveries(ids(3), 2000)],
  pauseDeliveries: (s) => [s.pauseDeliveries(ids(1), 1000), s.pauseDeliveries(ids(3), 1000)],
  releaseLease: (s) => [s.releaseLease("dlv_0", 2000)],
  markSucceeded: (s) => [s.markSucceeded(ids(1), 200, 1, 1000), s.markSucceeded(ids(3), null, 0, 1000)],
  markFailed: (s) => [
    s.markFailed({ id: "dlv_0", status: "pending", attempts: 1, nextAttemptAt: 2000, statusCode: 500, error: "HTTP 500" }, 1000),
    s.markFailed({ id: "dlv_0", status: "failed", attempts: 9, nextAttemptAt: 2000, statusCode: null, error: "timeout" }, 1000),
  ],
  insertAttempts: (s) => [s.insertAttempts(attempts(1)), s.insertAttempts(attempts(3))],
};

const suites = [
  suite<DeliveryStatements>({ folder: "delivery", sets: deliveryStatementSets, of: deliveryStatements, samples: deliverySamples }),
  suite<EventStatements>({
    folder: "watch",
    sets: eventStatementSets,
    of: eventStatements,
    samples: {
      insertEvents: (s) => [s.insertEvents(events(1)), s.insertEvents(events(3))],
      selectEventPosition: (s) => [s.selectEventPosition("evt_1")],
      selectEventsAfter: (s) => [s.selectEventsAfter("acc_1", 7, 101)],
      selectNetworkEventsAfter: (s) => [s.selectNetworkEventsAfter("*", "eth", 7, null, 101), s.selectNetworkEventsAfter("*", "eth", 7, 90, 101)],
      selectSubscriptions: (s) => [s.selectSubscriptions("acc_1", null, 7), s.selectSubscriptions("acc_1", "eth", 7)],
    },
  }),
  suite<EndpointHealthStatements>({
    folder: "webhooks",
    sets: endpointHealthStatementSets,
    of: endpointHealthStatements,
    samples: {
      recordEndpointOutcomes: (s) => [
        s.recordEndpointOutcomes([{ endpointId: "ep_1", lastSuccessAt: 900, failingSince: null, lastStatusCode: null, lastError: null }], 1000),
        s.recordEndpointOutcomes(
          ["ep_1", "ep_2", "ep_3"].map((endpointId) => ({ endpointId, lastSuccessAt: null, failingSince: 900, lastStatusCode: 500, lastError: "http 500" })),
          1000,
        ),
      ],
    },
  }),
  suite<BillingStatements>({
    folder: "billing",
    sets: billingStatementSets,
    of: billingStatements,
    samples: {
      chargeAccount: (s) => [s.chargeAccount("acc_1", 5, 1000)],
      chargeAccounts: (s) => [s.chargeAccounts([{ accountId: "acc_1", credits: 5 }], 1000), s.chargeAccounts(["acc_1", "acc_2", "acc_3"].map((accountId) => ({ accountId, credits: 2 })), 1000)],
      addUsage: (s) => [s.addUsage("2025-01-01", usage(1)), s.addUsage("2025-01-01", usage(3))],
      addRpcUsage: (s) => [s.addRpcUsage("acc_1", "2025-01-01", 3, 2)],
      readFreeCredits: (s) => [s.readFreeCredits("acc_1")],
      readRpcAccount: (s) => [s.readRpcAccount("acc_1")],
      writeLease: (s) => [s.writeLease("daemon-a", "acc_1", 10, 5000)],
      dropLease: (s) => [s.dropLease("daemon-a", "acc_1")],
      dropExpiredLeases: (s) => [s.dropExpiredLeases(1000)],
      dropAllLeases: (s) => [s.dropAllLeases()],
    },
  }),
  suite<ChainStatements>({
    folder: "ingest",
    sets: chainStatementSets,
    of: chainStatements,
    samples: {
      selectCanonicalTip: (s) => [s.selectCanonicalTip("btc")],
      selectCanonicalBlocks: (s) => [s.selectCanonicalBlocks("btc", 5, 9)],
      selectRecordedOutputs: (s) => [s.selectRecordedOutputs("btc", ["tx_1"]), s.selectRecordedOutputs("btc", ["tx_1", "tx_2", "tx_3"])],
      upsertOutputs: (s) => [s.upsertOutputs(outputs(1), "blk_1", 7), s.upsertOutputs(outputs(3), "blk_1", 7)],
    },
  }),
  suite<PaymentStatements>({
    folder: "payments",
    sets: paymentStatementSets,
    of: paymentStatements,
    samples: {
      selectCheckoutOrderByKey: (s) => [s.selectCheckoutOrderByKey("ab".repeat(32))],
      selectCheckoutOrdersById: (s) => [s.selectCheckoutOrdersById(["pay_1"]), s.selectCheckoutOrdersById(["pay_1", "pay_2", "pay_3"])],
      selectWaitingNativeOrder: (s) => [s.selectWaitingNativeOrder("btc")],
      selectOrderIdTaken: (s) => [s.selectOrderIdTaken("acc_1", "o-1")],
      selectDerivedOrderAt: (s) => [s.selectDerivedOrderAt("eth", "0xabc")],
      selectLiveOrderAt: (s) => [s.selectLiveOrderAt("eth", "0xabc", null), s.selectLiveOrderAt("eth", "0xabc", "0xdef")],
      insertOrder: (s) => [s.insertOrder(newOrder)],
      selectAccountOrder: (s) => [s.selectAccountOrder("acc_1", "pay_1")],
      selectLatePayments: (s) => [s.selectLatePayments(["pay_1"]), s.selectLatePayments(["pay_1", "pay_2", "pay_3"])],
    },
  }),
  suite<WatchStatements>({
    folder: "watch",
    sets: watchStatementSets,
    of: watchStatements,
    samples: {
      selectWatchAt: (s) => [s.selectWatchAt("acc_1", "eth", "0xabc")],
      selectSlots: (s) => [s.selectSlots("acc_1")],
      insertWatch: (s) => [s.insertWatch({ id: "aw_1", account_id: "acc_1", network: "eth", address: "0xabc", created_at: 1 })],
      addToWatchCount: (s) => [s.addToWatchCount("acc_1", 1), s.addToWatchCount("acc_1", -3)],
    },
  }),
  suite<AccountStatements>({
    folder: "accounts",
    sets: accountStatementSets,
    of: accountStatements,
    samples: { accountSnapshot: (s) => [s.accountSnapshot("acc_1", "2025-01-01")], liveKey: (s) => [s.liveKey("3f0c2a9e-0000-4000-8000-000000000001")] },
  }),
];

const dialects = [
  ["SQLite", "sqlite"],
  ["PostgreSQL", "postgres"],
] as const;
const cases = suites.flatMap(({ folder, sets, samples }) =>
  dialects.flatMap(([dialect, key]) =>
    Object.entries(samples as Samples<Record<string, unknown>>).flatMap(([statement, make]) =>
      make(sets[key] as Record<string, unknown>).map((query, i) => ({ dialect, name: `${folder}/${statement}`, i, query })),
    ),
  ),
);

/** The text outside string literals: only there do `?` and `$n` mean placeholders. */
const code = (text: string) => text.replace(/'(?:[^']|'')*'/g, "''");

describe("each dialect's statements are written in its own SQL", () => {
  it.each(cases.filter((c) => c.dialect === "SQLite"))("SQLite $name #$i: one `?` per parameter, no numbered placeholder", ({ query }) => {
    expect(code(query.sql).split("?").length - 1).toBe(query.parameters.length);
    expect(code(query.sql)).not.toMatch(/\$\d/);
  });

  it.each(cases.filter((c) => c.dialect === "PostgreSQL"))("PostgreSQL $name #$i: numbered placeholders naming each parameter, no `?` and no unary plus", ({ query }) => {
    const text = code(query.sql);
    const used = new Set([...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
    expect([...used].sort((a, b) => a - b)).toEqual(query.parameters.map((_, i) => i + 1));
    expect(text).not.toContain("?");
    // SQLite's planner hint `+column` (a unary plus) is an error on PostgreSQL's text columns.
    expect(text).not.toMatch(/[\s(]\+[a-z_]/);
  });

  it.each(suites)("both dialects write every statement of $folder/", ({ sets, samples }) => {
    expect(Object.keys(sets.postgres as object).sort()).toEqual(Object.keys(sets.sqlite as object).sort());
    expect(Object.keys(sets.sqlite as object).sort()).toEqual(Object.keys(samples as object).sort());
  });
});

describe("the statements of the database in use", () => {
  let dir: string;
  let db: Db;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-statements-"));
    db = openDatabase(testDatabaseUrl(dir));
    const migrated = await migrate(db);
    if (!migrated.ok) throw new Error(migrated.error);
  });

  afterAll(async () => {
    await db?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(suites)("of $folder/ come with the dialect the database was opened with, and a transaction has the same", async ({ sets, of }) => {
    const expected = onPostgres ? sets.postgres : sets.sqlite;
    expect(isPostgres(db)).toBe(onPostgres);
    expect(of(db)).toBe(expected);
    expect(await db.transaction().execute(async (trx) => of(trx))).toBe(expected);
  });

  const own = cases.filter((c) => c.dialect === (onPostgres ? "PostgreSQL" : "SQLite"));
  it.each(own)("$dialect accepts $name #$i with its parameters", async ({ query }) => {
    // EXPLAIN compiles the statement with its parameters bound (SQLite's bytecode, PostgreSQL's
    // plan) and runs nothing.
    const { rows } = await db.executeQuery({ ...query, sql: `explain ${query.sql}` });
    expect(rows.length).toBeGreaterThan(0);
  });

  it("a database opened some other way has none: a clear error instead of another dialect's SQL", async () => {
    const bare = new Kysely<any>({ dialect: new BunSqliteDialect({ database: new Database(":memory:") }) });
    try {
      for (const { of } of suites) expect(() => of(bare)).toThrow("the database was not opened with openDatabase: no statements for its dialect");
      expect((await sql<{ one: number }>`select 1 as one`.execute(bare)).rows).toEqual([{ one: 1 }]);
    } finally {
      await bare.destroy();
    }
  });
});
