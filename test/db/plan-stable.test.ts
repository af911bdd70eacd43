import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { type Context, openContext } from "../../src/daemon.ts";
import { planStableSql } from "../../src/db/dialect/sqlite/plan-stable.ts";
import { onPostgres, testConfig } from "../support/harness.ts";

// SQLite compiles a statement again on every new binding of a parameter its planner read while
// preparing it (a LIMIT's value, a term checked against a partial index's condition, a join's
// propagated constant), so the daemon's SQLite connection prepares every statement from a text
// whose placeholders the planner cannot read (src/db/dialect/sqlite/plan-stable.ts).

describe("planStableSql", () => {
  it("writes every placeholder +?, and a LIMIT's or OFFSET's +? + 0", () => {
    expect(planStableSql("select id from t where a = ? and b in (?, ?) order by id limit ?")).toBe("select id from t where a = +? and b in (+?, +?) order by id limit +? + 0");
    expect(planStableSql("SELECT id FROM t LIMIT ? OFFSET ?")).toBe("SELECT id FROM t LIMIT +? + 0 OFFSET +? + 0");
    expect(planStableSql("select id from t limit?")).toBe("select id from t limit+? + 0");
    expect(planStableSql("insert into t (a, b) values (?,?),(?,?) returning id")).toBe("insert into t (a, b) values (+?,+?),(+?,+?) returning id");
    expect(planStableSql("update t set n = n - ? where id = ?")).toBe("update t set n = n - +? where id = +?");
    expect(planStableSql("select 1")).toBe("select 1");
  });

  it("leaves string literals, quoted identifiers, comments and numbered placeholders as they are", () => {
    expect(planStableSql("select '?', 'it''s ?' as \"a?\", `b?`, [c?] from t where x = ?")).toBe("select '?', 'it''s ?' as \"a?\", `b?`, [c?] from t where x = +?");
    expect(planStableSql("select a -- where b = ?\nfrom t /* limit ? */ where c = ?1")).toBe("select a -- where b = ?\nfrom t /* limit ? */ where c = ?1");
    // A word that merely ends in "limit" is no LIMIT clause.
    expect(planStableSql('select "rate_limit" from t where my_limit = ?')).toBe('select "rate_limit" from t where my_limit = +?');
  });

  it("returns the same rows as the text as written, for every kind of binding", () => {
    const db = new Database(":memory:");
    db.run("create table t (id integer primary key, name text, data blob, n real, status text)");
    db.run("create index t_open on t (name) where status = 'open'");
    const insert = "insert into t (name, data, n, status) values (?, ?, ?, ?)";
    for (const [i, status] of ["open", "closed", "open", "open"].entries()) {
      db.query(planStableSql(insert)).run(`n${i}`, new Uint8Array([i, 255]), i / 2, status);
    }
    const cases: [string, unknown[]][] = [
      ["select * from t where status = ? order by id limit ? offset ?", ["open", 2, 1]],
      ["select id from t where name = ? and status = 'open'", ["n2"]],
      ["select id from t where data = ?", [new Uint8Array([3, 255])]],
      ["select id, ? as echoed from t where n >= ? and name like ? order by id", [null, 0.5, "n%"]],
      ["select id from t where id in (?, ?, ?) limit ?", [1, 3, 9, 10]],
      ["select count(*) as c from t where name is ?", [null]],
      // A text that reads as a number stays a text, and a large integer stays exact.
      ["select ? as text, ? as big, typeof(?) as kind", ["007", 9007199254740993n, "007"]],
    ];
    for (const [text, args] of cases) {
      expect(db.query(planStableSql(text)).all(...(args as never[]))).toEqual(db.query(text).all(...(args as never[])));
    }
    db.close();
  });
});

describe.skipIf(onPostgres)("the daemon's SQLite connection", () => {
  let dir: string;
  let ctx: Context;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-plan-stable-"));
    ctx = await openContext(testConfig(dir), { env: {} });
  });

  afterAll(async () => {
    await ctx?.db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The opcodes of the program SQLite compiles for `select id from deliveries limit <bound 7777>`, on the connection. */
  async function limitProgram(run: (query: ReturnType<typeof sql>) => Promise<{ rows: unknown[] }>) {
    const { rows } = await run(sql`explain select id from deliveries limit ${7777}`);
    return rows as { opcode: string; p1: number }[];
  }

  it("compiles a bound LIMIT to be read when the statement runs, not into the statement", async () => {
    const program = await limitProgram((q) => q.execute(ctx.db));
    expect(program.some((op) => op.opcode === "Integer" && op.p1 === 7777)).toBe(false);
    expect(program.filter((op) => op.opcode === "Variable").length).toBe(1);
    // As SQLite compiles the text as written: the bound value becomes a constant of the program,
    // and binding another value makes SQLite compile the statement again.
    const raw = new Database(":memory:");
    raw.run("create table deliveries (id text)");
    const asWritten = raw.query("explain select id from deliveries limit ?").all(7777) as { opcode: string; p1: number }[];
    expect(asWritten.some((op) => op.opcode === "Integer" && op.p1 === 7777)).toBe(true);
    raw.close();
  });
});
