import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeMigration } from "../../cli/commands/migrate.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { testDatabaseName, testDatabaseUrl } from "../support/harness.ts";
import { CLI, cleanEnv } from "../support/cli.ts";
import { freePort } from "../support/free-port.ts";

// What a newcomer meets on a fresh clone: real CLI processes (test/support/cli.ts) on a new
// database. The migration list is read from the code, so a new migration changes no expectation.
let dir: string;
let config: string;

async function cli(args: string[], cfg = config) {
  const proc = Bun.spawn([process.execPath, CLI, ...args, "--config", cfg], { cwd: dir, env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** A free TCP port with nothing listening on it: bind port 0, read it, let it go. */
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-first-run-"));
  config = join(dir, "cw.toml");
  // Empty on PostgreSQL too (not a copy of the migrated template): migrating it is the point.
  writeFileSync(config, ["[database]", `url = "${testDatabaseUrl(dir, { empty: true })}"`, "[secrets]", `master_key_file = "${dir}/master.key"`, ""].join("\n"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const names = Object.keys(migrations).sort();
const first = names[0];
const last = names[names.length - 1];
const lastNumber = last.split("_")[0];

describe("migrate says what it did", () => {
  test("on an empty database: how many it applied, first … last, and the schema it left", async () => {
    const r = await cli(["migrate"]);
    expect(r).toEqual({
      code: 0,
      stdout: `applied ${names.length} migrations (${first} … ${last}); schema at ${lastNumber}\n`,
      stderr: `chainwatch: database ${testDatabaseName(dir)} (config ${config} from --config)\n`,
    });
  });

  test("again: up to date, with the schema", async () => {
    expect((await cli(["migrate"])).stdout).toBe(`up to date (schema at ${lastNumber})\n`);
    expect(JSON.parse((await cli(["migrate", "--json"])).stdout)).toEqual({ ok: true, database: testDatabaseUrl(dir), applied: [], schema: last });
  });

  test.each([
    [[], "0021_x", "up to date (schema at 0021)"],
    [["0022_b"], "0022_b", "applied 1 migration (0022_b); schema at 0022"],
    [["0022_b", "0021_a"], "0022_b", "applied 2 migrations (0021_a, 0022_b); schema at 0022"],
    [["0001_a", "0002_b", "0003_c"], "0003_c", "applied 3 migrations (0001_a … 0003_c); schema at 0003"],
  ])("describeMigration(%p, %p) is %p", (applied, schema, text) => {
    expect(describeMigration(applied, schema)).toBe(text);
  });
});

describe("accounts create without --plan", () => {
  test("warns on stderr what the free plan cannot do and how to fix it; stdout is the same one JSON document", async () => {
    const r = await cli(["accounts", "create", "newbie", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      account_id: expect.stringMatching(/^acc_/),
      name: "newbie",
      plan: "free",
      credits: 0,
      webhook_secret: expect.stringMatching(/^whsec_/),
    });
    expect(r.stderr.split("\n")[0]).toBe(
      "chainwatch: warning: no --plan given, so account newbie is on plan free: 0 address slots (it cannot watch any address), 0 credits (its webhooks wait as paused); " +
        "to fix: `chainwatch accounts set-plan newbie PLAN` (make a plan with `chainwatch plans set PLAN --slots N`), `chainwatch accounts credit newbie --add N`; or pass --plan and --credits to accounts create",
    );
  });

  test("with --plan nothing is said", async () => {
    expect((await cli(["plans", "set", "starter", "--slots", "5"])).code).toBe(0);
    const r = await cli(["accounts", "create", "planned", "--plan", "starter", "--credits", "10", "--json"]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("warning");
  });
});

describe("errors name the next step", () => {
  test("a webhook test with no URL names `chainwatch webhook set` and the API route", async () => {
    const r = await cli(["webhook", "test", "--account", "newbie", "--event", "payment", "--network", "eth"]);
    expect(r).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "chainwatch: No webhook URL configured. Set one with `chainwatch webhook set --account newbie --url URL --enabled` (or PUT /v1/address-watch/webhook).\n",
    });
  });

  test("a database that refuses connections stops start-up naming database.url, the password masked", async () => {
    // Below the kernel's ephemeral range: no other test's server or connection is handed it meanwhile.
    const port = freePort();
    const pg = join(dir, "pg.toml");
    writeFileSync(pg, ["[database]", `url = "postgres://shop:hunter2@127.0.0.1:${port}/chainwatch"`, "[secrets]", `master_key_file = "${dir}/master.key"`, ""].join("\n"));
    for (const command of [["migrate"], ["serve"]]) {
      const r = await cli(command, pg);
      expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 1, stdout: "" });
      expect(r.stderr).toBe(
        `chainwatch: cannot connect to the database at postgres://shop:***@127.0.0.1:${port}/chainwatch (config key \`database.url\`): connect ECONNREFUSED 127.0.0.1:${port}; ` +
          "nothing accepts connections there: is the database server running, and are the host and port right?\n",
      );
    }
  });
});
