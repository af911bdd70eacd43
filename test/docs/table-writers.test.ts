import { describe, expect, it } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { join } from "node:path";

// docs/architecture.md's "Who writes each table" names, for every table, the folders that write
// it. The source is grepped for writes — Kysely's insertInto/updateTable/deleteFrom (and
// replaceInto/mergeInto) naming a table, and hand-written `insert into`, `update … set` and
// `delete from` SQL — and each folder that writes a table must be named for it, and each folder
// named must write it: the list stays true and minimal. Migrations (src/db/migrations/) are the
// schema's history, which shapes and moves every table's rows; they are no writer at run time.

const root = join(import.meta.dir, "../..");

/** The tables of the schema, and the PostgreSQL-only ones its dialect folder creates. */
function schemaTables(): Set<string> {
  const schema = readFileSync(join(root, "src/db/schema.ts"), "utf8");
  const body = schema.slice(schema.indexOf("export interface DB {"));
  const tables = new Set([...body.slice(0, body.indexOf("\n}")).matchAll(/^\s+([a-z_]+):/gm)].map((m) => m[1]));
  for (const file of new Glob("src/db/dialect/postgres/*.ts").scanSync(root)) {
    for (const m of readFileSync(join(root, file), "utf8").matchAll(/create (?:unlogged )?table if not exists ([a-z_]+)/g)) tables.add(m[1]);
  }
  return tables;
}

/** The list: table → the folders its second column names (`folder/`, or a file at the top of src/). */
function documentedWriters(): Map<string, Set<string>> {
  const doc = readFileSync(join(root, "docs/architecture.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Who writes each table"));
  const rows = section.slice(0, section.indexOf("\n## ", 3)).split("\n").filter((l) => /^\| `/.test(l));
  const writers = new Map<string, Set<string>>();
  for (const row of rows) {
    const [tables, by] = row.split("|").slice(1, 3);
    const folders = new Set([...by.matchAll(/`([a-z-]+\/|[a-z-]+\.ts)`/g)].map((m) => m[1].replace(/\/$/, "")));
    for (const [, table] of tables.matchAll(/`([a-z_]+)`/g)) writers.set(table, folders);
  }
  return writers;
}

/** Text with comments taken out: prose about a statement is no write. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");

const WRITES = [
  /\.(?:insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(\s*["'`]([a-z_]+)/g,
  /\binsert\s+(?:or\s+[a-z]+\s+)?into\s+([a-z_]+)/gi,
  /\bupdate\s+([a-z_]+)\s+(?:as\s+[a-z_]+\s+)?set\b/gi,
  /\bdelete\s+from\s+([a-z_]+)/gi,
];

/** Table → folder → the files of that folder that write it. */
function actualWriters(tables: Set<string>): Map<string, Map<string, Set<string>>> {
  const found = new Map<string, Map<string, Set<string>>>();
  for (const file of new Glob("src/**/*.ts").scanSync(root)) {
    if (file.startsWith("src/db/migrations/")) continue;
    const text = code(readFileSync(join(root, file), "utf8"));
    const folder = file.split("/")[1];
    for (const pattern of WRITES) {
      for (const m of text.matchAll(pattern)) {
        const table = m[1].toLowerCase();
        if (!tables.has(table)) continue;
        if (!found.has(table)) found.set(table, new Map());
        const byFolder = found.get(table)!;
        if (!byFolder.has(folder)) byFolder.set(folder, new Set());
        byFolder.get(folder)!.add(file);
      }
    }
  }
  return found;
}

describe("docs/architecture.md's list of who writes each table", () => {
  const tables = schemaTables();
  const listed = documentedWriters();
  const written = actualWriters(tables);

  it("names every table of the schema, and nothing else", () => {
    expect([...listed.keys()].sort()).toEqual([...tables].sort());
  });

  it("finds the writes it checks (the grep still sees the code's ways of writing)", () => {
    for (const [table, folder] of [
      ["deliveries", "delivery"],
      ["usage_daily", "billing"],
      ["events", "watch"],
      ["endpoint_health", "webhooks"],
      ["lead_epochs", "db"],
      ["rate_windows", "db"],
    ]) {
      expect(written.get(table)?.has(folder)).toBe(true);
    }
  });

  it.each([...tables].sort().map((table) => ({ table })))("`$table` is written only by the folders it names, and by each of them", ({ table }) => {
    const actual = written.get(table) ?? new Map<string, Set<string>>();
    const unlisted = [...actual].filter(([folder]) => !listed.get(table)?.has(folder)).map(([folder, files]) => `${folder}/ (${[...files].join(", ")})`);
    expect(unlisted).toEqual([]);
    expect([...(listed.get(table) ?? [])].filter((folder) => !actual.has(folder))).toEqual([]);
  });
});
