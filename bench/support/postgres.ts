// A throwaway PostgreSQL cluster for a benchmark run, on this machine: started with the test
// suite's script (temp data directory, 127.0.0.1, a free port, fsync off), one fresh database per
// scenario, and stopped at the end — also when the run fails or is interrupted.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { onInterrupt } from "./interrupt.ts";

const SCRIPT = join(import.meta.dir, "../../test/support/postgres.sh");

export type BenchCluster = {
  /** The server's URL (its `postgres` database). */
  url: string;
  /** The postmaster's pid, for CPU accounting of the server and its backends. */
  pid: number;
  /** A new, empty database on the cluster; returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the cluster and removes its directory; safe to call twice. */
  stop(): void;
};

export async function startCluster(): Promise<BenchCluster> {
  const dir = mkdtempSync(join(tmpdir(), "chainwatch-bench-pg-"));
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    Bun.spawnSync(["bash", SCRIPT, "stop", dir], { stdout: "ignore", stderr: "inherit" });
  };
  // Ctrl-C, a kill or an exit without `finally` would otherwise leave a postmaster running.
  onInterrupt(stop);
  process.once("exit", stop);

  const started = Bun.spawnSync(["bash", SCRIPT, "start", dir], { stdout: "pipe", stderr: "pipe" });
  if (started.exitCode !== 0) {
    stop();
    throw new Error(`cannot start PostgreSQL (test/support/postgres.sh): ${started.stderr.toString().trim()}`);
  }
  const url = started.stdout.toString().trim();
  const pid = Number(readFileSync(join(dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
  return {
    url,
    pid,
    createDatabase: (name) => createDatabase(url, name),
    stop,
  };
}

/** A new, empty database `name` on the server at `serverUrl`; returns its URL. */
export async function createDatabase(serverUrl: string, name: string): Promise<string> {
  await onServer(serverUrl, `create database ${checkedName(name)}`);
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Drops the database `name` on the server at `serverUrl`, if it exists. */
export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await onServer(serverUrl, `drop database if exists ${checkedName(name)}`);
}

function checkedName(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
  return name;
}

async function onServer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** The server's major version, for the report. */
export async function serverVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query("show server_version");
    return String(rows[0].server_version).split(" ")[0];
  } finally {
    await client.end();
  }
}
