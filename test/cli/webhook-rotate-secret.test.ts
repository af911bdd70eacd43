import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { openDatabase } from "../../src/db/database.ts";
import { startTestDaemon, type TestDaemon, testDatabaseUrl } from "../support/harness.ts";
import { until } from "../support/poll.ts";
import { startWebhookSink, type WebhookSink } from "../support/webhook-sink.ts";
import { expectedXSignature, runCli, writeToml } from "../delivery/fixtures.ts";

// `chainwatch webhook rotate-secret`: the rotation of POST /v1/address-watch/webhook/secret/rotate
// from the command line, with `--grace` read like the other duration flags.

let dir: string;
let config: string;
let firstSecret: string;

const cli = (args: string[]) => runCli([...args, "--config", config]);
const json = async (args: string[]) => {
  const r = await cli([...args, "--json"]);
  if (r.code !== 0) throw new Error(`${args.join(" ")}: exit ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, any>;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-rotate-"));
  config = writeToml(dir);
  expect((await runCli(["migrate", "--config", config])).code).toBe(0);
  firstSecret = (await json(["accounts", "create", "shop"])).webhook_secret;
  await json(["keys", "create", "--account", "shop"]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The account's stored secrets and grace, sealed as they are (compared, never opened), read in-process. */
async function storedSecrets() {
  const db = openDatabase(testDatabaseUrl(dir));
  try {
    const e = await db
      .selectFrom("webhook_endpoints")
      .innerJoin("accounts", "accounts.id", "webhook_endpoints.account_id")
      .select(["secret_enc", "previous_secret_enc", "previous_secret_expires_at"])
      .where("accounts.name", "=", "shop")
      .orderBy("webhook_endpoints.id")
      .executeTakeFirstOrThrow();
    return { webhook_secret_enc: e.secret_enc, webhook_previous_secret_enc: e.previous_secret_enc, webhook_previous_secret_expires_at: e.previous_secret_expires_at };
  } finally {
    await db.destroy();
  }
}

/** Milliseconds from now until an RFC 3339 instant the CLI printed, bounded by the times around the call. */
async function rotated(args: string[]) {
  const before = Date.now();
  const doc = await json(["webhook", "rotate-secret", "--account", "shop", ...args]);
  return { doc, before, after: Date.now() };
}

describe("chainwatch webhook rotate-secret", () => {
  test("prints the new secret and when the old one stops signing: a day later unless told", async () => {
    const { doc, before, after } = await rotated([]);
    expect(Object.keys(doc)).toEqual(["webhook_secret", "previous_expires_at"]);
    expect(doc.webhook_secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(doc.webhook_secret).not.toBe(firstSecret);
    const expires = Date.parse(doc.previous_expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 86_400_000 - 1000);
    expect(expires).toBeLessThanOrEqual(after + 86_400_000);
    // `accounts show` shows the secret that signs now: the new one.
    expect((await json(["accounts", "show", "shop"])).webhook_secret).toBe(doc.webhook_secret);
  });

  test.each([
    ["1h", 3_600_000],
    ["30m", 1_800_000],
    ["7d", 604_800_000],
    ["0", 0],
    ["0s", 0],
  ])("--grace %s", async (grace, ms) => {
    const { doc, before, after } = await rotated(["--grace", grace]);
    const expires = Date.parse(doc.previous_expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + ms - 1000);
    expect(expires).toBeLessThanOrEqual(after + ms);
  });

  test("the human form prints the same two fields", async () => {
    const r = await cli(["webhook", "rotate-secret", "--account", "shop", "--grace", "1h"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^webhook_secret\s+whsec_\S+\nprevious_expires_at\s+\d{4}-\d\d-\d\dT[\d:.]+\+00:00\n$/);
  });

  test.each(["8d", "-1h", "soon", "24", ""])("--grace %p is a usage error that changes nothing", async (grace) => {
    const stored = await storedSecrets();
    const r = await cli(["webhook", "rotate-secret", "--account", "shop", "--grace", grace]);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 2,
      stdout: "",
      // An empty value of any flag is refused as such, before the flag's own reading.
      stderr:
        grace === ""
          ? "chainwatch: --grace must not be empty (see --help)\n"
          : "chainwatch: --grace must be a duration such as 0, 30m, 24h or 7d, at most 7d (see --help)\n",
    });
    // Nothing changed: neither secret nor the old one's grace (read in-process, not by two more CLI runs).
    expect(await storedSecrets()).toEqual(stored);
  });

  test("an unknown account fails with exit 1", async () => {
    const r = await cli(["webhook", "rotate-secret", "--account", "nobody"]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr: "chainwatch: no such account: nobody\n" });
  });

  test("keys list and accounts list print no webhook secret", async () => {
    const current = (await json(["accounts", "show", "shop"])).webhook_secret as string;
    for (const args of [["keys", "list"], ["keys", "list", "--account", "shop"], ["accounts", "list"]]) {
      for (const form of [await cli(args), await cli([...args, "--json"])]) {
        expect(form.code).toBe(0);
        expect(form.stdout + form.stderr).not.toContain("whsec_");
        expect(form.stdout + form.stderr).not.toContain(current.slice("whsec_".length));
        expect(form.stdout + form.stderr).not.toContain(firstSecret.slice("whsec_".length));
      }
    }
  });
});

describe("a rotation from the command line while the daemon runs", () => {
  let td: TestDaemon;
  let sink: WebhookSink;
  beforeAll(async () => {
    sink = startWebhookSink();
    td = await startTestDaemon({ config: { rate_limit: { per_key_rps: 1000 } } });
  });
  afterAll(async () => {
    await td.stop();
    await sink.stop();
  });

  test("the daemon's next delivery is signed by both secrets", async () => {
    const c = await td.client();
    expect((await c.request("PUT", "/v1/address-watch/webhook", { url: sink.url, enabled: true })).status).toBe(200);
    const r = await runCli(["webhook", "rotate-secret", "--account", c.accountId, "--grace", "1h", "--json", "--config", writeToml(td.dir)]);
    expect(r.code).toBe(0);
    const newSecret = JSON.parse(r.stdout).webhook_secret as string;

    const queued = await c.request("POST", "/v1/address-watch/webhook/test", { event: "block", network: "eth" });
    const id = ((await queued.json()) as { delivery_id: string }).delivery_id;
    const [got] = await until(async () => sink.received.filter((x) => x.headers["webhook-id"] === id), (rs) => rs.length === 1);
    const headers = { "webhook-id": got.headers["webhook-id"], "webhook-timestamp": got.headers["webhook-timestamp"], "webhook-signature": got.headers["webhook-signature"] };
    expect(got.headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(new Webhook(c.webhookSecret).verify(got.body, headers)).toEqual(JSON.parse(got.body));
    expect(new Webhook(newSecret).verify(got.body, headers)).toEqual(JSON.parse(got.body));
    expect(got.headers["x-signature"]).toBe(expectedXSignature(newSecret, got.headers["x-timestamp"], got.body));
  });
});
