import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { openDatabase } from "../../src/db/database.ts";
import { openContext } from "../../src/daemon.ts";
import { onPostgres, testConfig } from "../support/harness.ts";

const root = mkdtempSync(join(tmpdir(), "cw-modes-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe("the database files are private to the daemon's user", () => {
  test("a new data folder is 0700 and the database, its WAL and SHM are 0600 from the start", async () => {
    const dir = join(root, "fresh", "data");
    const file = join(dir, "chainwatch.db");
    const db = openDatabase(file);
    // Before any statement ran: the file SQLite opened was created 0600, never wider.
    expect([mode(join(root, "fresh")), mode(dir), mode(file)]).toEqual(["700", "700", "600"]);
    await sql`create table t (a integer)`.execute(db);
    await sql`insert into t values (1)`.execute(db);
    expect([mode(`${file}-wal`), mode(`${file}-shm`)]).toEqual(["600", "600"]);
    await db.destroy();
  });

  test("files an older version left 0644 are narrowed to 0600 when opened", async () => {
    const dir = join(root, "old");
    const file = join(dir, "chainwatch.db");
    let db = openDatabase(file);
    await sql`create table t (a integer)`.execute(db);
    await db.destroy();
    writeFileSync(`${file}-wal`, "");
    for (const f of [file, `${file}-wal`]) chmodSync(f, 0o644);
    db = openDatabase(file);
    expect([mode(file), mode(`${file}-wal`)]).toEqual(["600", "600"]);
    await db.destroy();
  });

  test("an existing folder keeps its mode (it may be the operator's own directory); the file is still 0600", async () => {
    const own = mkdtempSync(join(root, "own-"));
    chmodSync(own, 0o755);
    const db = openDatabase(join(own, "chainwatch.db"));
    expect([mode(own), mode(join(own, "chainwatch.db"))]).toEqual(["755", "600"]);
    await db.destroy();
  });

  // On PostgreSQL there is no database file to check (the master key still is: see above).
  test.skipIf(onPostgres)("a first start creates the data folder 0700 with the master key and database inside 0600", async () => {
    const dir = join(root, "daemon", "data");
    const ctx = await openContext(testConfig(dir), { env: {} });
    expect([mode(dir), mode(join(dir, "master.key")), mode(join(dir, "chainwatch.db"))]).toEqual(["700", "600", "600"]);
    expect([mode(join(dir, "chainwatch.db-wal")), mode(join(dir, "chainwatch.db-shm"))]).toEqual(["600", "600"]);
    await ctx.db.destroy();
  });
});
