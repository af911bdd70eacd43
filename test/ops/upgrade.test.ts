import { afterAll, describe, expect, test, setDefaultTimeout } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openContext } from "../../src/daemon.ts";
import { refusalFor } from "../../src/db/version-guard.ts";
import { compareVersions, VERSION } from "../../src/version.ts";
import { onPostgres, testConfig } from "../support/harness.ts";
import pkg from "../../package.json" with { type: "json" };
import { runCli } from "../delivery/fixtures.ts";

// Each test starts several `chainwatch` processes; on a loaded machine that takes seconds.
setDefaultTimeout(30_000);

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A migrated database in a fresh directory, and a config file for the CLI. */
async function migratedDir() {
  const dir = mkdtempSync(join(tmpdir(), "chainwatch-upgrade-"));
  dirs.push(dir);
  const ctx = await openContext(testConfig(dir), { env: {} });
  await ctx.db.destroy();
  const toml = join(dir, "chainwatch.toml");
  writeFileSync(toml, `[server]\nport = 0\n[database]\nurl = "sqlite://${dir}/chainwatch.db"\n[secrets]\nmaster_key_file = "${dir}/master.key"\n`);
  return { dir, toml, file: join(dir, "chainwatch.db") };
}

describe("versions", () => {
  test("one version: package.json's, in `chainwatch version`, --version and --help", async () => {
    expect(VERSION).toBe(pkg.version);
    expect(await runCli(["version"])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
    expect((await runCli(["version", "--json"])).stdout).toBe(`{"version":"${pkg.version}"}\n`);
    expect((await runCli(["--version"])).stdout).toBe(`${pkg.version}\n`);
    expect((await runCli(["--help"])).stdout).toContain(`chainwatch v${pkg.version}`);
  });

  test.each([
    ["0.1.0", "0.1.0", 0],
    ["0.1.0", "0.2.0", -1],
    ["0.10.0", "0.9.9", 1],
    ["1.0.0-rc.1", "1.0.0", -1],
    ["1.0.0-rc.2", "1.0.0-rc.1", 1],
    ["2.0.0", "10.0.0", -1],
  ])("compareVersions(%s, %s) has the sign of %d", (a, b, sign) => {
    expect(Math.sign(compareVersions(a, b))).toBe(sign);
  });
});

// The tests edit the SQLite file directly to fake a newer version; the rule itself is dialect-free.
describe.skipIf(onPostgres)("a database migrated by a newer chainwatch", () => {
  test("the rule: newer stamp or unknown migrations refuse, older or equal pass", () => {
    const known = ["0001_core", "0011_meta"];
    expect(refusalFor({ migratedBy: null, applied: [] }, "0.1.0", known)).toBeNull();
    expect(refusalFor({ migratedBy: "0.1.0", applied: known }, "0.1.0", known)).toBeNull();
    expect(refusalFor({ migratedBy: "0.0.9", applied: ["0001_core"] }, "0.1.0", known)).toBeNull();
    expect(refusalFor({ migratedBy: "0.2.0", applied: known }, "0.1.0", known)).toBe(
      "the database was migrated by chainwatch 0.2.0; this is chainwatch 0.1.0: run chainwatch 0.2.0 or newer, or restore a backup taken before the upgrade",
    );
    expect(refusalFor({ migratedBy: "0.1.0", applied: [...known, "0012_x"] }, "0.1.0", known)).toContain(
      "chainwatch 0.1.0; this is chainwatch 0.1.0 (migrations this version does not have: 0012_x)",
    );
  });

  test("migrating stamps the database with this version", async () => {
    const { file } = await migratedDir();
    const db = new Database(file, { readonly: true });
    expect(db.query("SELECT value FROM meta WHERE key = 'migrated_by'").get()).toEqual({ value: VERSION });
    db.close();
  });

  test("serve refuses to start, naming both versions, and changes nothing", async () => {
    const { toml, file } = await migratedDir();
    const db = new Database(file);
    db.run("UPDATE meta SET value = '99.0.0' WHERE key = 'migrated_by'");
    db.run("INSERT INTO kysely_migration (name, timestamp) VALUES ('0099_future', '2030-01-01T00:00:00.000Z')");
    db.close();
    const r = await runCli(["serve", "--config", toml]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `chainwatch: the database was migrated by chainwatch 99.0.0; this is chainwatch ${VERSION} (migrations this version does not have: 0099_future): run chainwatch 99.0.0 or newer, or restore a backup taken before the upgrade\n`,
    );
    const after = new Database(file, { readonly: true });
    expect(after.query("SELECT value FROM meta WHERE key = 'migrated_by'").get()).toEqual({ value: "99.0.0" });
    after.close();
  });

  test("an older stamp stays until a migration changes the schema", async () => {
    const { toml, file } = await migratedDir();
    const db = new Database(file);
    db.run("UPDATE meta SET value = '0.0.1' WHERE key = 'migrated_by'");
    db.close();
    // Nothing to migrate: the stamp keeps naming the version that last changed the schema.
    expect((await runCli(["plans", "list", "--config", toml])).code).toBe(0);
    const after = new Database(file, { readonly: true });
    expect(after.query("SELECT value FROM meta WHERE key = 'migrated_by'").get()).toEqual({ value: "0.0.1" });
    after.close();
  });
});
