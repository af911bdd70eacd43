import { afterEach, describe, expect, test } from "bun:test";
import { type Db, openDatabase } from "../../src/db/database.ts";
import { createDatabaseProbe } from "../../src/db/health-probe.ts";
import { failureMessage, failureStatus } from "../../src/lib/failures.ts";
import { freePort } from "../support/free-port.ts";

// /healthz's probe of the database, the one outcome shape every edge reads: what /healthz answers
// is the failure's status and sentence.
const opened: Db[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.destroy();
});

describe("the database probe of /healthz", () => {
  test("a database that answers is ok", async () => {
    const db = openDatabase(":memory:");
    opened.push(db);
    expect(await createDatabaseProbe(db, 2_000)()).toEqual({ ok: true });
  });

  test("a database nobody answers for is a DATABASE_UNAVAILABLE that says why: 503 with its sentence", async () => {
    // Below the kernel's ephemeral range: no other test's server or connection is handed it meanwhile.
    const port = freePort();
    const db = openDatabase(`postgres://chain@127.0.0.1:${port}/chainwatch`);
    opened.push(db);
    const health = await createDatabaseProbe(db, 2_000)();
    if (health.ok) throw new Error("the probe answered ok");
    expect(health.code).toBe("DATABASE_UNAVAILABLE");
    expect([failureStatus(health), failureMessage(health)]).toEqual([503, `database unavailable: connect ECONNREFUSED 127.0.0.1:${port}`]);
  });
});
