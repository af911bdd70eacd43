import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { createHash, createHmac } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { Webhook } from "standardwebhooks";
import { join } from "node:path";
import { onPostgres, testDatabaseName, testDatabaseUrl } from "../support/harness.ts";
import { CLI, cleanEnv } from "../support/cli.ts";
import { until } from "../support/poll.ts";
import { freePort } from "../support/free-port.ts";

// The CLI as a user runs it: separate CLI processes (test/support/cli.ts) over one SQLite file,
// with a `serve` process beside them. Nothing here imports chainwatch code.
const spawned: Subprocess[] = [];
const spawnedServers: { stop(force?: boolean): unknown }[] = [];
let dir: string;
let config: string;
let port: number;
let serve: Subprocess<"ignore", "pipe", "pipe"> | undefined;
let serveLog = "";

async function cli(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}) {
  const proc = Bun.spawn([process.execPath, CLI, ...args], {
    cwd: opts.cwd ?? dir,
    env: cleanEnv(opts.env),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  spawned.push(proc);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Runs a command with --json that must succeed, returning its one JSON document. */
async function json(args: string[]) {
  const r = await cli([...args, "--json", "--config", config]);
  if (r.code !== 0) throw new Error(`${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  expect(r.stdout.trim().split("\n").length).toBe(1);
  return JSON.parse(r.stdout);
}

function tomlFor(dbDir: string, listenPort: number): string {
  return [
    "[server]",
    'host = "127.0.0.1"',
    `port = ${listenPort}`,
    "[database]",
    `url = "${testDatabaseUrl(dbDir, { empty: true })}"`, // migrate is tested from nothing
    "[secrets]",
    `master_key_file = "${dbDir}/master.key"`,
    // The webhook receiver of these tests listens on 127.0.0.1.
    "[delivery]",
    "allow_private_targets = true",
    "",
  ].join("\n");
}

type Key = { api_key: string; secret: string };

/** The three auth headers, computed the way any client would (node:crypto, no chainwatch code). */
function signed(creds: Key, path: string) {
  const ts = String(Math.floor(Date.now() / 1000));
  const bodyHash = createHash("sha256").update("").digest("hex");
  const sig = createHmac("sha256", creds.secret).update(`${ts}\nGET\n${path}\n${bodyHash}`).digest("hex");
  return { "X-Api-Key": creds.api_key, "X-Timestamp": ts, "X-Signature": sig };
}

async function getAccount(creds: Key) {
  const res = await fetch(`http://127.0.0.1:${port}/v1/account`, { headers: signed(creds, "/v1/account") });
  return { status: res.status, body: (await res.json()) as any };
}

/** Signed reads until `check` holds; 120 ms apart, so they stay under the key's 10 requests a second. */
function eventually<T>(read: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
  return until(read, check, { everyMs: 120 });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-cli-"));
  port = freePort();
  config = join(dir, "cw.toml");
  writeFileSync(config, tomlFor(dir, port));
});

afterAll(async () => {
  for (const s of spawnedServers) s.stop(true);
  for (const p of spawned) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  await Promise.all(spawned.map((p) => p.exited));
  rmSync(dir, { recursive: true, force: true });
});

describe("chainwatch CLI round trip", () => {
  let alice: { account_id: string; webhook_secret: string };
  let key: { api_key: string; secret: string; account_id: string; allow_ips: string[] };

  test("a command other than migrate refuses to start from no database, naming the path and the config", async () => {
    const r = await cli(["plans", "list", "--config", config]);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 1,
      stdout: "",
      // A PostgreSQL database exists before chainwatch does (its administrator creates it): the missing master key is what stops the command.
      stderr: `chainwatch: ${onPostgres ? `no master key at ${dir}/master.key (and $CHAINWATCH_MASTER_KEY is not set)` : `no database at ${dir}/chainwatch.db`} (config ${config} from --config); run \`chainwatch migrate\` to create it, or pass --create\n`,
    });
    expect(existsSync(join(dir, "chainwatch.db"))).toBe(false);
    expect(existsSync(join(dir, "master.key"))).toBe(false);
  });

  test("run from another folder with no config, it names the built-in default path it would have used", async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "chainwatch-cli-elsewhere-"));
    try {
      const r = await cli(["keys", "list"], { cwd: elsewhere });
      expect({ code: r.code, stderr: r.stderr }).toEqual({
        code: 1,
        stderr: `chainwatch: no database at ${realpathSync(elsewhere)}/data/chainwatch.db (built-in defaults: no --config, $CHAINWATCH_CONFIG or ./chainwatch.toml); run \`chainwatch migrate\` to create it, or pass --create\n`,
      });
      expect(existsSync(join(elsewhere, "data"))).toBe(false);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  test("migrate creates the database and the master key, and says which database on stderr", async () => {
    const r = await cli(["migrate", "--json", "--config", config]);
    expect({ code: r.code, stdout: JSON.parse(r.stdout), stderr: r.stderr }).toEqual({
      code: 0,
      stdout: { ok: true, database: testDatabaseUrl(dir), applied: expect.arrayContaining(["0001_core"]), schema: expect.stringMatching(/^\d{4}_/) },
      stderr: `chainwatch: database ${testDatabaseName(dir)} (config ${config} from --config)\n`,
    });
    expect(existsSync(join(dir, "master.key"))).toBe(true);
  });

  test("plans set prints the plan as JSON", async () => {
    expect(await json(["plans", "set", "gold", "--slots", "5", "--monthly-credits", "1000"])).toEqual({
      name: "gold",
      address_slots: 5,
      rpc_rps: 25,
      monthly_credits: 1000,
      max_endpoints: 10,
    });
  });

  test("accounts create prints the account with its webhook secret", async () => {
    const created = await json(["accounts", "create", "alice", "--plan", "gold", "--credits", "100"]);
    expect(created).toEqual({
      account_id: expect.stringMatching(/^acc_[0-9a-f]{24}$/),
      name: "alice",
      plan: "gold",
      credits: 100,
      webhook_secret: expect.stringMatching(/^whsec_/),
    });
    alice = created;
  });

  test("keys create prints the key and its secret", async () => {
    key = await json(["keys", "create", "--account", "alice", "--label", "ci"]);
    expect(key).toEqual({
      api_key: expect.stringMatching(/^[0-9a-f-]{36}$/),
      secret: expect.stringMatching(/^[0-9a-f]{64}$/),
      account_id: alice.account_id,
      allow_ips: [],
    });
  });

  test("serve starts, logs JSON lines, and answers a request signed with the printed secret", async () => {
    serve = Bun.spawn([process.execPath, CLI, "serve", "--config", config], { cwd: dir, env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    spawned.push(serve);
    (async () => {
      for await (const chunk of serve!.stdout) serveLog += new TextDecoder().decode(chunk);
    })();
    const health = await until(
      () => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status, () => 0),
      (s) => s === 200,
      { timeoutMs: 25_000 },
    );
    expect(health).toBe(200);
    // Plan gold grants 1000 credits a month: the daemon gives this month's grant when it starts.
    await eventually(() => getAccount(key), (r) => r.body.credits?.balance === 1100);
    expect(await getAccount(key)).toEqual({
      status: 200,
      body: {
        account_id: alice.account_id,
        name: "alice",
        environment: "production",
        plan: { name: "gold", address_slots: 5, rpc_rps: 25, monthly_credits: 1000 },
        credits: { balance: 1100, spent_today: 0 },
        address_slots: { used: 0, limit: 5 },
      },
    });
    const first = JSON.parse(serveLog.split("\n")[0]);
    expect(first).toMatchObject({ level: "info", msg: "listening" });
  });

  test("a second serve on the same port fails with exit 1 instead of sharing the port", async () => {
    // Another database: on the same one the second serve would stop before listening (serve-lock.test.ts).
    const clash = join(dir, "port-clash");
    mkdirSync(clash);
    writeFileSync(join(clash, "cw.toml"), tomlFor(clash, port));
    const r = await cli(["serve", "--config", join(clash, "cw.toml")]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 1,
      stderr: `chainwatch: cannot listen on 127.0.0.1:${port}: port ${port} is in use (another chainwatch serve, or another program); choose another with serve --port, the config key server.port or $CHAINWATCH_SERVER__PORT\n`,
    });
    expect((await getAccount(key)).status).toBe(200);
  });

  test("the daemon sees credits added by the CLI while it runs", async () => {
    expect((await json(["accounts", "credit", "alice", "--add", "50"])).credits).toBe(1150);
    // Account snapshots are served from memory for up to a second (docs/cli.md: "within a second").
    const res = await eventually(() => getAccount(key), (r) => r.body.credits?.balance === 1150);
    expect(res.body.credits.balance).toBe(1150);
  });

  test("a key created by the CLI while serve runs is accepted", async () => {
    const second = await json(["keys", "create", "--account", "alice"]);
    const res = await eventually(() => getAccount(second), (r) => r.status === 200);
    expect(res.status).toBe(200);
  });

  test("webhook set points the account at a local receiver, and webhook test reaches it signed as the README verifies it", async () => {
    const received: { headers: Record<string, string>; body: string }[] = [];
    let arrived: () => void = () => {};
    const got = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        received.push({ headers: Object.fromEntries(req.headers), body: await req.text() });
        arrived();
        return new Response("ok");
      },
    });
    spawnedServers.push(receiver);
    const url = `http://127.0.0.1:${receiver.port}/hook`;
    expect(await json(["webhook", "set", "--account", "alice", "--url", url, "--enabled"])).toMatchObject({ url, enabled: true });
    const queued = await json(["webhook", "test", "--account", "alice", "--event", "payment", "--network", "eth"]);
    await got;
    const [hit] = received;
    expect(hit.headers["x-webhook-id"]).toBe(queued.delivery_id);
    // The README's two checks: standardwebhooks over Object.fromEntries(req.headers), and the X-Signature HMAC.
    const payload = new Webhook(alice.webhook_secret).verify(hit.body, hit.headers) as { network: string };
    expect(payload.network).toBe("eth");
    const key = Buffer.from(alice.webhook_secret.slice("whsec_".length), "base64");
    expect(hit.headers["x-signature"]).toBe(createHmac("sha256", key).update(`${hit.headers["x-timestamp"]}.${hit.body}`).digest("hex"));
  });

  test("keys revoke makes the daemon answer Invalid API key within about a second", async () => {
    expect(await json(["keys", "revoke", key.api_key])).toEqual({ api_key: key.api_key, revoked: true });
    const res = await eventually(() => getAccount(key), (r) => r.status === 401);
    expect(res).toEqual({ status: 401, body: { error: "Invalid API key" } });
  });

  test("--json outputs of the list and show commands parse and never print API secrets", async () => {
    const plans = await json(["plans", "list"]);
    expect(plans.plans.map((p: { name: string }) => p.name)).toEqual(["free", "gold"]);
    const accounts = await json(["accounts", "list"]);
    expect(accounts.accounts).toMatchObject([{ account_id: alice.account_id, name: "alice", plan: "gold", credits: 1150, address_slots: { used: 0, limit: 5 } }]);
    expect(accounts.accounts[0].webhook_secret).toBeUndefined();
    const shown = await json(["accounts", "show", "alice"]);
    expect(shown.webhook_secret).toBe(alice.webhook_secret);
    const keys = await json(["keys", "list", "--account", "alice"]);
    expect(keys.keys.length).toBe(2);
    expect(keys.keys.find((k: { api_key: string }) => k.api_key === key.api_key).revoked_at).toMatch(/\+00:00$/);
    expect(JSON.stringify(keys)).not.toContain(key.secret);
  });

  test("global flags work before and after the command", async () => {
    const before = await cli(["--config", config, "keys", "list", "--json"]);
    const after = await cli(["keys", "list", "--json", "--config", config]);
    const equals = await cli(["--json", `--config=${config}`, "keys", "list"]);
    expect([before.code, after.code, equals.code]).toEqual([0, 0, 0]);
    expect(JSON.parse(before.stdout)).toEqual(JSON.parse(after.stdout));
    expect(JSON.parse(equals.stdout)).toEqual(JSON.parse(after.stdout));
    expect(JSON.parse(after.stdout).keys.length).toBe(2);
  });

  test("without --json the output is for humans", async () => {
    const r = await cli(["plans", "list", "--config", config]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")[0]).toMatch(/^NAME\s+SLOTS\s+RPC_RPS\s+MONTHLY_CREDITS\s+MAX_ENDPOINTS$/);
    // rpc_rps is shown, and said to limit the JSON-RPC endpoint only, not the signed API.
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe(
      "RPC_RPS limits the JSON-RPC endpoint (POST /rpc/{network}) only; the signed API is limited per key by rate_limit.per_key_rps.",
    );
  });

  test("the config is found through $CHAINWATCH_CONFIG, then ./chainwatch.toml, with --config above both", async () => {
    const local = join(dir, "local");
    const other = join(dir, "other");
    mkdirSync(local);
    mkdirSync(other);
    writeFileSync(join(local, "chainwatch.toml"), tomlFor(dir, port));
    writeFileSync(join(other, "cw.toml"), tomlFor(other, port));
    const names = (r: { stdout: string }) => JSON.parse(r.stdout).plans.map((p: { name: string }) => p.name);
    // ./chainwatch.toml points at the main database, which has plan gold.
    expect(names(await cli(["plans", "list", "--json"], { cwd: local }))).toEqual(["free", "gold"]);
    // $CHAINWATCH_CONFIG (another, fresh database: --create lets it be made) beats ./chainwatch.toml.
    const otherConfig = join(other, "cw.toml");
    expect(names(await cli(["plans", "list", "--json", "--create"], { cwd: local, env: { CHAINWATCH_CONFIG: otherConfig } }))).toEqual(["free"]);
    // --config beats $CHAINWATCH_CONFIG.
    expect(names(await cli(["plans", "list", "--json", "--config", config], { cwd: local, env: { CHAINWATCH_CONFIG: otherConfig } }))).toEqual([
      "free",
      "gold",
    ]);
  });

  test.each([
    [["plans", "set", "x", "--slots", "abc"], "chainwatch: --slots must be a non-negative integer (see --help)"],
    [["plans", "set", "x"], "chainwatch: Missing required argument: --slots (see --help)"],
    [["bogus"], "chainwatch: unknown command bogus (see --help)"],
    [["keys", "create", "--account", "alice", "--allow-ip", "nope"], "chainwatch: --allow-ip nope is not an IP address or CIDR (see --help)"],
    [["accounts", "credit", "alice", "--add", "0"], "chainwatch: --add must be a positive integer (see --help)"],
  ])("a usage error (%p) exits 2 with one line on stderr", async (args, message) => {
    const r = await cli([...args, "--config", config]);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 2, stdout: "", stderr: `${message}\n` });
  });

  test("--config without a path is a usage error", async () => {
    const r = await cli(["keys", "list", "--config"]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 2, stderr: "chainwatch: --config needs a file path (see --help)\n" });
  });

  test.each([
    [["accounts", "show", "nobody"], "chainwatch: no such account: nobody"],
    [["accounts", "create", "alice"], "chainwatch: account alice already exists"],
    [["keys", "revoke", "00000000-0000-4000-8000-000000000000"], "chainwatch: no active API key 00000000-0000-4000-8000-000000000000"],
    [["plans", "set", "free", "--slots", "2"], "chainwatch: plan free always has 0 address slots"],
  ])("a failing command (%p) exits 1 with one line on stderr", async (args, message) => {
    const r = await cli([...args, "--config", config]);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 1, stdout: "", stderr: `${message}\n` });
  });

  test("a bad config stops the command naming the key", async () => {
    const bad = join(dir, "bad.toml");
    writeFileSync(bad, "[server]\nprot = 1\n");
    const r = await cli(["plans", "list", "--config", bad]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr: `chainwatch: ${bad}: unknown config key \`server.prot\`; did you mean \`server.port\`?\n` });
  });

  test("SIGTERM stops serve with exit code 0", async () => {
    expect(serve).toBeDefined();
    serve!.kill("SIGTERM");
    expect(await serve!.exited).toBe(0);
    const lines = serveLog.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({ level: "info", msg: "stopped" });
    expect(lines.some((l) => l.msg === "shutting down" && l.signal === "SIGTERM")).toBe(true);
    // serve says once which database it uses and which config chose it.
    expect(lines.filter((l) => l.msg === "database")).toEqual([
      { time: expect.any(String), level: "info", msg: "database", database: testDatabaseName(dir), config: `config ${config} from --config` },
    ]);
    // The grant at start is logged; the webhook test's success is not a state change worth a line.
    expect(lines.some((l) => l.msg === "monthly credits granted" && l.accounts === 1)).toBe(true);
    const after = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status, () => 0);
    expect(after).toBe(0);
  });
});
