// The least a chainwatch-like program does to start, made of the fixed stack's parts only, for
// `bench:startup`: `serve <port> <db file>` opens SQLite (WAL) and answers GET /healthz with Elysia;
// `read <db file>` opens it, reads one table and prints it as JSON; `version` prints a version.
// Compiled with the same flags as chainwatch's binary, it is what a start costs before any code of
// chainwatch's runs.
import { Database } from "bun:sqlite";
import { Elysia } from "elysia";

const [command, ...args] = process.argv.slice(2);

function open(file: string): Database {
  const db = new Database(file, { create: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("CREATE TABLE IF NOT EXISTS plans (id TEXT PRIMARY KEY, name TEXT NOT NULL)");
  return db;
}

if (command === "serve") {
  const db = open(args[1]);
  new Elysia().get("/healthz", () => ({ ok: db.query("SELECT 1 AS ok").get() !== null })).listen({ hostname: "127.0.0.1", port: Number(args[0]) });
} else if (command === "read") {
  console.log(JSON.stringify(open(args[0]).query("SELECT id, name FROM plans").all()));
} else if (command === "version") {
  console.log("0.0.0");
} else {
  console.error("usage: bare-start serve <port> <db> | read <db> | version");
  process.exitCode = 2;
}
