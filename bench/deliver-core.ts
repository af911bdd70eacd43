// The delivery loops without the network: `bun run bench:deliver-core [--statements]`. In this one
// process every POST goes to a stub `fetch` that answers 200 "ok" at once, so all that is measured
// is the loops' own work, which `bench:deliver` can only see beside the HTTP client, the receiver
// and the socket layer (more than half of its figure, and most of its spread between rounds):
//
// - the daemon's delivery loop: its real code (claim, pass, send, settle), started by
//   startDaemon over its own SQLite database with the stub as its `fetch` (with --receiver, the
//   counting wrapper of the real one below);
// - the contract loop (support/contract-loop.ts): the least the delivery contract asks;
// - the same contract loop over chainwatch's own outbox tables (their indexes, wider rows and text
//   keys, as the migrations make them): what the outbox's shape costs that least implementation;
// - the durable loop (support/durable-loop.ts): the least a durable outbox asks.
//
// Each round gives each loop BENCH_DELIVERIES (20,000) rows queued beforehand (not measured), in
// turn, for BENCH_ROUNDS (5) rounds; every loop runs 32 POSTs in flight, as the daemon's default
// concurrency. BENCH_BODY_BYTES sets the bodies' size (support/bodies.ts). It prints CPU µs a delivery of the whole process, split by thread (the JS thread,
// the JIT's, the collector's helpers, the rest: the WAL checkpoint's among them), medians and spread.
// The daemon stays up throughout: its per-second workers idle beside the other two loops (about
// 0.3 µs of their delivery). `--statements` also times every SQLite statement (wall time, which
// here is the JS thread's: the driver is synchronous) and prints each loop's statements a
// delivery by kind; the timing wrapper costs a few µs a statement of its own, so those rounds'
// totals read high.
//
// `--receiver` (or BENCH_RECEIVER=1) puts the sockets back, and nothing else: every loop POSTs
// over 127.0.0.1 to bench:deliver's receiver (another process, answering 200 at once) with this
// process's real `fetch`, so the loops still share one process, one heap and the same measurement,
// but their sends finish as they would in production: a few at a time, each group commit
// recording what finished since the last.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { createAccount } from "../src/accounts/accounts.ts";
import { setPlan } from "../src/accounts/plans.ts";
import { loadConfig } from "../src/config/load.ts";
import { openContext, startDaemon } from "../src/daemon.ts";
import { enqueueDelivery } from "../src/delivery/outbox.ts";
import { newTimeOrderedId } from "../src/lib/ids.ts";
import { openContractStore, openOutboxContractStore, outboxSchemaOf, signedPost } from "./support/contract-loop.ts";
import { type ThreadKinds, threadKindsSince, threadRunTimes } from "./support/cpu.ts";
import { firstLine, writeDaemonConfig } from "./support/daemons.ts";
import { openStore, postBody, runLoop } from "./support/durable-loop.ts";
import { pointWebhook } from "./support/endpoint.ts";
import { median, spread } from "./support/rounds.ts";
import { benchBodies, bodiesLabel } from "./support/bodies.ts";

const TOTAL = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONCURRENCY = 32;
const timeStatements = process.argv.includes("--statements");
const overSockets = process.argv.includes("--receiver") || process.env.BENCH_RECEIVER === "1";

type Loop = "daemon" | "contract loop, outbox" | "contract loop" | "durable loop";
const LOOPS: Loop[] = ["daemon", "contract loop, outbox", "contract loop", "durable loop"];

// The receiver: in process, every POST answered at once, as bench:deliver's receiver answers; with
// `--receiver`, that receiver itself in its own process, reached over a socket.
let posts = 0;
const receiver = overSockets
  ? Bun.spawn([process.execPath, join(import.meta.dir, "deliver.ts"), "--receiver"], { stdin: "ignore", stdout: "pipe", stderr: "inherit" })
  : null;
const HOOK = receiver ? `http://127.0.0.1:${JSON.parse(await firstLine(receiver, (l) => l.startsWith("{"))).port}/hook` : "http://127.0.0.1:9/hook";
const post = (
  receiver
    ? (url: string, init: RequestInit) => {
        posts++;
        return fetch(url, init);
      }
    : async () => {
        posts++;
        return new Response("ok", { status: 200, headers: { "content-length": "2" } });
      }
) as unknown as typeof fetch;

/** Each statement's wall time by loop and kind, while `--statements` is on. */
let measuring: Loop | null = null;
const statements = new Map<Loop, Map<string, number>>(LOOPS.map((l) => [l, new Map()]));
if (timeStatements) timeEveryStatement();

const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-core-"));
try {
  const loaded = loadConfig(writeDaemonConfig(dir, `sqlite://${dir}/daemon.db`, ["[delivery]", "allow_private_targets = true", `concurrency = ${CONCURRENCY}`]));
  if (!loaded.ok) throw new Error(loaded.error);
  const ctx = await openContext(loaded.config, { env: {} });
  const daemon = await startDaemon(ctx, { fetch: post });
  try {
    const plan = await setPlan(ctx.db, ctx.clock, { name: "bench", slots: 1 });
    if (!plan.ok) throw new Error(plan.error);
    const made = await createAccount(ctx, { name: "bench", plan: "bench", credits: 1_000_000_000_000 });
    if (!made.ok) throw new Error(made.error);
    const accountId = made.account.id;
    const endpointId = await pointWebhook(ctx.db, accountId, HOOK);
    const bodies = benchBodies(TOTAL);

    const runs: Record<Loop, ThreadKinds[]> = { daemon: [], "contract loop, outbox": [], "contract loop": [], "durable loop": [] };
    // The outbox's tables as the daemon's migrations made them, for the contract loop over them.
    const outboxSchema = outboxSchemaOf(join(dir, "daemon.db"));
    const daemonRound = async (): Promise<ThreadKinds> => {
      await ctx.db.transaction().execute(async (trx) => {
        const nowMs = Date.now() - 1000;
        for (const body of bodies) await enqueueDelivery(trx, { accountId, endpointId, kind: "event", eventType: "payment", network: "eth", body, nowMs });
      });
      const target = posts + TOTAL;
      const window = threadWindow("daemon");
      // The loop wakes on its own tick; done when every row was posted and none is left pending.
      const deadline = Date.now() + 300_000;
      for (;;) {
        if (Date.now() > deadline) throw new Error(`the daemon posted ${posts - target + TOTAL} of ${TOTAL} deliveries in 5 minutes`);
        if (posts >= target) {
          const left = await sql`select 1 from deliveries where status = 'pending' limit 1`.execute(ctx.db);
          if (left.rows.length === 0) break;
        }
        await Bun.sleep(10);
      }
      if (posts !== target) throw new Error(`the daemon posted ${posts - target + TOTAL} times for ${TOTAL} deliveries`);
      return window();
    };
    const contractRound = async (): Promise<ThreadKinds> => {
      const store = openContractStore(join(dir, "contract.db"), bodies);
      const window = threadWindow("contract loop");
      const out = await runLoop(store.commit, signedPost(HOOK, post), CONCURRENCY);
      const used = window();
      store.close();
      if (out.sent !== TOTAL || out.failed !== 0) throw new Error(`the contract loop sent ${out.sent}, ${out.failed} failed`);
      return used;
    };
    const outboxContractRound = async (): Promise<ThreadKinds> => {
      const store = openOutboxContractStore(join(dir, "contract-outbox.db"), bodies, outboxSchema, () => newTimeOrderedId("dlv"));
      const window = threadWindow("contract loop, outbox");
      const out = await runLoop(store.commit, signedPost(HOOK, post), CONCURRENCY);
      const used = window();
      store.close();
      if (out.sent !== TOTAL || out.failed !== 0) throw new Error(`the contract loop over the outbox sent ${out.sent}, ${out.failed} failed`);
      return used;
    };
    const durableRound = async (): Promise<ThreadKinds> => {
      const store = await openStore(`sqlite://${join(dir, "durable.db")}`, bodies);
      const window = threadWindow("durable loop");
      const out = await runLoop((done: number[], limit, nowMs, leaseUntil) => store.commit(done, limit, nowMs, leaseUntil), postBody(HOOK, post), CONCURRENCY);
      const used = window();
      await store.close();
      if (out.sent !== TOTAL || out.failed !== 0) throw new Error(`the durable loop sent ${out.sent}, ${out.failed} failed`);
      return used;
    };
    const rounds: Record<Loop, () => Promise<ThreadKinds>> = {
      daemon: daemonRound,
      "contract loop, outbox": outboxContractRound,
      "contract loop": contractRound,
      "durable loop": durableRound,
    };

    const answeredBy = receiver ? `bench:deliver's receiver in another process, over 127.0.0.1` : "a stub fetch in this process (no sockets)";
    console.log(`deliveries: ${TOTAL} a round, ${ROUNDS} round(s), ${CONCURRENCY} in flight, ${bodiesLabel()}; every POST answered at once by ${answeredBy}`);
    for (let r = 1; r <= ROUNDS; r++) {
      const parts: string[] = [];
      for (const loop of LOOPS) {
        const used = await rounds[loop]();
        runs[loop].push(used);
        parts.push(`${loop} ${describe(used)}`);
      }
      console.log(`round ${r}: ${parts.join(" · ")}`);
    }
    const total = (loop: Loop) => runs[loop].map((t) => t.total / TOTAL);
    const ratio = (a: Loop, b: Loop) => runs[a].map((t, i) => t.total / runs[b][i].total);
    console.log(`CPU µs per delivery (median, min–max): ${LOOPS.map((l) => `${l} ${spread(total(l), 1)}`).join(", ")}`);
    if (timeStatements) {
      for (const loop of LOOPS) {
        const kinds = [...(statements.get(loop) as Map<string, number>)].sort((a, b) => b[1] - a[1]);
        const all = kinds.reduce((s, [, ms]) => s + ms, 0);
        const per = (ms: number) => ((ms * 1000) / (TOTAL * ROUNDS)).toFixed(2);
        console.log(`${loop} statements, wall µs a delivery: ${per(all)} = ${kinds.map(([k, ms]) => `${k} ${per(ms)}`).join(", ")}`);
      }
    }
    const r1 = ratio("daemon", "contract loop");
    const r2 = ratio("daemon", "durable loop");
    const r3 = ratio("contract loop", "durable loop");
    const r4 = ratio("daemon", "contract loop, outbox");
    const r5 = ratio("contract loop, outbox", "contract loop");
    const above = (a: Loop, b: Loop) => (median(total(a)) - median(total(b))).toFixed(1);
    console.log(
      `daemon / contract loop ${spread(r1, 2)}×, daemon / durable loop ${spread(r2, 2)}×, contract / durable loop ${spread(r3, 2)}× (within each round); ` +
        `the daemon's own work above the contract: ${above("daemon", "contract loop")} µs a delivery`,
    );
    console.log(
      `over the outbox's tables: contract loop, outbox / contract loop ${spread(r5, 2)}×, daemon / contract loop, outbox ${spread(r4, 2)}×; ` +
        `of the daemon's ${above("daemon", "contract loop")} µs above the contract, the outbox's shape ${above("contract loop, outbox", "contract loop")} and the rest ${above("daemon", "contract loop, outbox")}`,
    );
  } finally {
    await daemon.stop();
    await ctx.db.destroy();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
  receiver?.kill();
}

/** Starts a window over this process's threads while `loop` runs; its end gives the CPU µs each kind of thread used. */
function threadWindow(loop: Loop): () => ThreadKinds {
  const before = threadRunTimes(process.pid);
  measuring = loop;
  return () => {
    measuring = null;
    return threadKindsSince(process.pid, before);
  };
}

function describe(t: ThreadKinds): string {
  const per = (us: number) => (us / TOTAL).toFixed(1);
  return `${per(t.total)} µs (JS thread ${per(t.js)}, JIT ${per(t.jit)}, GC helpers ${per(t.gc)}, other ${per(t.other)})`;
}

/** Wraps every statement bun:sqlite prepares in this process with a wall-time count under the loop being measured. */
function timeEveryStatement(): void {
  const wrapped = new WeakSet<object>();
  for (const method of ["prepare", "query"] as const) {
    const original = Database.prototype[method] as unknown as (this: Database, sqlText: string, ...rest: unknown[]) => Record<string, unknown>;
    (Database.prototype as unknown as Record<string, unknown>)[method] = function (this: Database, sqlText: string, ...rest: unknown[]) {
      const statement = original.call(this, sqlText, ...rest);
      if (wrapped.has(statement)) return statement;
      wrapped.add(statement);
      const kind = statementKind(sqlText);
      for (const run of ["run", "all", "get", "values"]) {
        const f = statement[run] as ((...a: unknown[]) => unknown) | undefined;
        if (typeof f !== "function") continue;
        statement[run] = function (this: unknown, ...a: unknown[]) {
          const t0 = performance.now();
          try {
            return f.apply(this, a);
          } finally {
            if (measuring) {
              const by = statements.get(measuring) as Map<string, number>;
              by.set(kind, (by.get(kind) ?? 0) + performance.now() - t0);
            }
          }
        };
      }
      return statement;
    };
  }
}

/** A statement named by what it does to which table: "update deliveries status", "select deliveries", "commit". */
function statementKind(text: string): string {
  const t = text.replace(/\s+/g, " ").trim().toLowerCase();
  const verb = t.split(" ")[0];
  if (verb === "begin" || verb === "commit" || verb === "rollback") return verb;
  // A select's own table, not a subquery's: parenthesized parts are dropped first.
  let outer = t;
  for (let inner = outer.replace(/\([^()]*\)/g, ""); inner !== outer; inner = outer.replace(/\([^()]*\)/g, "")) outer = inner;
  const table = /(?:from|into|update) "?(\w+)/.exec(outer)?.[1] ?? "?";
  const set = verb === "update" ? (/ set "?(\w+)/.exec(t)?.[1] ?? "") : "";
  return `${verb} ${table}${set ? ` set ${set}` : ""}`;
}
