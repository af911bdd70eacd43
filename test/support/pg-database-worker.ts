// The thread behind pg-databases.ts: one connection to the test server, on which it makes the
// migrated template (pg-template.ts) once and then the test databases, copies of it. Once a
// process has asked for a second database it keeps copies made ahead (STOCK), so a test that
// starts a daemon rarely waits for `create database` at all. Answers go back through the
// SharedArrayBuffer each request brings (layout in pg-databases.ts).
import pg from "pg";
import { ensureTemplate } from "./pg-template.ts";

declare const self: Worker;

export type DatabaseRequest = { sab: SharedArrayBuffer; server: string; empty: boolean };

/** Copies kept made ahead: a test taking one finds the next ready while it runs. */
const STOCK = 2;

/** One connection a server, its statements one at a time (pg's client warns of overlapping ones). */
const admins = new Map<string, { client: Promise<pg.Client>; last: Promise<unknown> }>();
const templates = new Map<string, Promise<string>>();
/** Copies made ahead, by server. */
const stocks = new Map<string, Promise<string>[]>();
let made = 0;
let asked = 0;

function query(server: string, text: string): Promise<unknown> {
  let admin = admins.get(server);
  if (!admin) {
    const client = new pg.Client({ connectionString: server });
    // An idle connection whose server went away must not end the process.
    client.on("error", () => {});
    admin = { client: client.connect().then(() => client), last: Promise.resolve() };
    admins.set(server, admin);
  }
  const { client } = admin;
  const run = admin.last.then(() => client).then((c) => c.query(text));
  admin.last = run.catch(() => {});
  return run;
}

async function create(server: string, empty: boolean): Promise<string> {
  const name = `cw_${process.pid}_${++made}_${Math.random().toString(36).slice(2, 8)}`;
  if (empty) {
    await query(server, `create database ${name}`);
    return name;
  }
  let template = templates.get(server);
  if (!template) templates.set(server, (template = ensureTemplate(server)));
  // file_copy: on an idle server about half the time of the default wal_log, which writes the
  // whole copy into the WAL.
  await query(server, `create database ${name} template ${await template} strategy file_copy`);
  return name;
}

function madeAhead(server: string): Promise<string> {
  const next = create(server, false);
  // A failure is answered to the request that takes this copy, not thrown here.
  next.catch(() => {});
  return next;
}

function answer(sab: SharedArrayBuffer, state: 1 | 2, text: string): void {
  const header = new Int32Array(sab, 0, 2);
  const bytes = new TextEncoder().encode(text).subarray(0, sab.byteLength - 8);
  new Uint8Array(sab, 8).set(bytes);
  header[1] = bytes.length;
  Atomics.store(header, 0, state);
  Atomics.notify(header, 0);
}

self.onmessage = async (event: MessageEvent<DatabaseRequest>) => {
  const { sab, server, empty } = event.data;
  try {
    let name: Promise<string>;
    if (empty) name = create(server, true);
    else {
      asked++;
      const stock = stocks.get(server) ?? [];
      stocks.set(server, stock);
      name = stock.shift() ?? create(server, false);
      // A process that asks once (a file with one daemon) wastes no copy; one that asks again
      // will likely ask more.
      if (asked >= 2) while (stock.length < STOCK) stock.push(madeAhead(server));
    }
    answer(sab, 1, await name);
  } catch (error) {
    answer(sab, 2, error instanceof Error ? error.message : String(error));
  }
};
