// A migrated PostgreSQL database for tests to copy, made by pg-databases.ts's thread before its
// first copy (`bun test/support/pg-template.ts <server url>` makes it by hand and prints its name).
// Creating a test database from it (`create database … template …`) skips the ~0.5 s every test
// daemon would spend applying all migrations to an empty database; the template is made by the
// same migrations and stamp a daemon applies, once per migration set, under an advisory lock so
// concurrent test processes make it once. Tests about migrating itself ask the harness for an
// empty database instead.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { openDatabase } from "../../src/db/database.ts";
import { migrateChecked } from "../../src/db/version-guard.ts";
import { VERSION } from "../../src/version.ts";

const MIGRATIONS = join(import.meta.dir, "../../src/db/migrations");

/** The template's name: changes whenever a migration or the version stamp does. */
export function templateName(): string {
  const h = createHash("sha256");
  for (const f of readdirSync(MIGRATIONS).sort()) h.update(f).update(readFileSync(join(MIGRATIONS, f)));
  h.update(VERSION);
  return `cw_template_${h.digest("hex").slice(0, 12)}`;
}

function withDatabase(server: string, name: string): string {
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Makes the template on `server` unless it is there already (under an advisory lock); answers its name. */
export async function ensureTemplate(server: string): Promise<string> {
  const name = templateName();
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query("select pg_advisory_lock(hashtext('chainwatch test template'))");
    const found = await admin.query("select 1 from pg_database where datname = $1", [name]);
    if (found.rowCount === 0) {
      // Made under another name and renamed when complete: a process killed half-way leaves no
      // template that looks finished.
      const wip = `${name}_wip`;
      await admin.query(`drop database if exists ${wip}`);
      await admin.query(`create database ${wip}`);
      const db = openDatabase(withDatabase(server, wip));
      const migrated = await migrateChecked(db, VERSION);
      await db.destroy();
      if (!migrated.ok) throw new Error(`cannot migrate the test template: ${migrated.error}`);
      await admin.query(`alter database ${wip} rename to ${name}`);
    }
    return name;
  } finally {
    await admin.end();
  }
}

if (import.meta.main) {
  const server = process.argv[2];
  if (!server) throw new Error("usage: bun test/support/pg-template.ts <postgres url>");
  process.stdout.write(`${await ensureTemplate(server)}\n`);
}
