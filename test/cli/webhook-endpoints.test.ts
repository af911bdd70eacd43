import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, writeToml } from "../delivery/fixtures.ts";

// `chainwatch webhook endpoints list|add|set|remove|rotate|test` and `plans set --max-endpoints`:
// the rules of the endpoints API on the command line (docs/cli.md).

type Json = Record<string, any>;
let dir: string;
let config: string;

/** Runs a command; its stderr without the line every command opens with (which database, which config). */
async function cli(args: string[]) {
  const r = await runCli([...args, "--config", config]);
  return { ...r, stderr: r.stderr.replace(/^chainwatch: database .*\n/, "") };
}
async function json(args: string[]): Promise<Json> {
  const r = await cli([...args, "--json"]);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  return JSON.parse(r.stdout) as Json;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-endpoints-cli-"));
  config = writeToml(dir, ["[delivery]", "allow_private_targets = true"]);
  expect((await runCli(["migrate", "--config", config])).code).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("plans set --max-endpoints", () => {
  test("sets the limit and shows it beside the plan's other figures; below 1 is refused", async () => {
    expect(await json(["plans", "set", "two", "--slots", "1", "--max-endpoints", "2"])).toEqual({
      name: "two",
      address_slots: 1,
      rpc_rps: 25,
      monthly_credits: 0,
      max_endpoints: 2,
    });
    // Left out, it keeps what the plan has.
    expect((await json(["plans", "set", "two", "--slots", "2"])).max_endpoints).toBe(2);
    const r = await cli(["plans", "set", "two", "--slots", "1", "--max-endpoints", "0"]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 2, stderr: "chainwatch: --max-endpoints must be at least 1: every account has its default webhook endpoint (see --help)\n" });
  });
});

describe("chainwatch webhook endpoints", () => {
  let added: Json;
  let defaultId: string;

  beforeAll(async () => {
    expect((await cli(["accounts", "create", "shop", "--plan", "two"])).code).toBe(0);
  });

  test("list shows the default endpoint the account was made with", async () => {
    const { endpoints } = await json(["webhook", "endpoints", "list", "--account", "shop"]);
    expect(endpoints).toEqual([expect.objectContaining({ url: null, enabled: false, description: null })]);
    defaultId = endpoints[0].endpoint_id;
  });

  test("add makes one with the flags given and prints its secret this once; past max_endpoints it is refused", async () => {
    added = await json(["webhook", "endpoints", "add", "--account", "shop", "--url", "http://127.0.0.1:9/orders", "--description", "orders", "--events", '{"block":false,"payment_order":true}', "--max-rps", "3"]);
    expect(added).toMatchObject({ url: "http://127.0.0.1:9/orders", enabled: true, description: "orders", delivery: { max_rps: 3 } });
    expect(added.events).toMatchObject({ block: false, payment_order: true, payment: true });
    expect(added.secret).toMatch(/^whsec_/);
    const again = await cli(["webhook", "endpoints", "add", "--account", "shop", "--url", "http://127.0.0.1:9/more"]);
    expect({ code: again.code, stderr: again.stderr }).toEqual({ code: 1, stderr: "chainwatch: Endpoint limit reached.\n" });
    expect((await json(["webhook", "endpoints", "list", "--account", "shop"])).endpoints.map((e: Json) => e.endpoint_id)).toEqual([defaultId, added.endpoint_id]);
  });

  test("set changes only the flags given", async () => {
    const set = await json(["webhook", "endpoints", "set", added.endpoint_id, "--account", "shop", "--no-enabled", "--events", '{"payout":false}']);
    const { secret: _shownOnce, ...shown } = added;
    expect(set).toEqual({ ...shown, enabled: false, events: { ...added.events, payout: false } });
    const r = await cli(["webhook", "endpoints", "set", added.endpoint_id, "--account", "shop", "--events", "[1]"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--events must be a JSON object of filter keys");
  });

  test("test queues a delivery to the endpoint even while it is switched off; rotate prints the new secret", async () => {
    expect(await json(["webhook", "endpoints", "test", added.endpoint_id, "--account", "shop", "--event", "payment_order", "--network", "eth"])).toEqual({
      queued: true,
      delivery_id: expect.stringMatching(/^dlv_/),
    });
    const rotated = await json(["webhook", "endpoints", "rotate", added.endpoint_id, "--account", "shop", "--grace", "0"]);
    expect(rotated).toEqual({ endpoint_id: added.endpoint_id, secret: expect.stringMatching(/^whsec_/), previous_expires_at: expect.any(String) });
    expect(rotated.secret).not.toBe(added.secret);
  });

  test("an id the account does not have is named in the refusal", async () => {
    for (const args of [
      ["set", "ep_nope", "--account", "shop", "--enabled"],
      ["remove", "ep_nope", "--account", "shop"],
      ["rotate", "ep_nope", "--account", "shop"],
      ["test", "ep_nope", "--account", "shop", "--event", "payment", "--network", "eth"],
    ]) {
      const r = await cli(["webhook", "endpoints", ...args]);
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr: "chainwatch: no such endpoint of this account: ep_nope\n" });
    }
  });

  test("remove deletes one; the account's last endpoint stays", async () => {
    expect(await json(["webhook", "endpoints", "remove", added.endpoint_id, "--account", "shop"])).toEqual({ endpoint_id: added.endpoint_id, deleted: true });
    const r = await cli(["webhook", "endpoints", "remove", defaultId, "--account", "shop"]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr: "chainwatch: An account keeps at least one webhook endpoint; disable it instead.\n" });
  });
});
