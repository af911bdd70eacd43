import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, cleanEnv } from "../support/cli.ts";

// `chainwatch webhook set`: the same service, validation and SSRF guard as PUT /v1/address-watch/webhook.
let dir: string;
let strict: string;
let local: string;

async function cli(args: string[]) {
  const proc = Bun.spawn([process.execPath, CLI, ...args], { cwd: dir, env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

const FILTERS = { payment: true, payment_networks: [], payout: true, payout_networks: [], block: true, block_networks: [], min_confirmations: 0 };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-webhook-set-"));
  const base = `[database]\nurl = "sqlite://${dir}/cw.db"\n[secrets]\nmaster_key_file = "${dir}/master.key"\n`;
  strict = join(dir, "strict.toml");
  local = join(dir, "local.toml");
  writeFileSync(strict, base);
  writeFileSync(local, `${base}[delivery]\nallow_private_targets = true\negress_ips = ["203.0.113.7"]\n`);
  expect((await cli(["migrate", "--config", strict])).code).toBe(0);
  expect((await cli(["accounts", "create", "shop", "--config", strict])).code).toBe(0);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("chainwatch webhook set", () => {
  test("refuses a loopback receiver unless the config allows private targets, and says which key allows it", async () => {
    const r = await cli(["webhook", "set", "--account", "shop", "--url", "http://127.0.0.1:9000/hook", "--enabled", "--config", strict]);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "chainwatch: --url resolves to a private address (a receiver on this machine needs delivery.allow_private_targets = true in the config)\n",
    });
  });

  test.each([
    ["ftp://example.com/x", "chainwatch: --url must be an absolute http(s) URL\n"],
    ["http://user:pw@127.0.0.1/x", "chainwatch: --url must not contain credentials\n"],
  ])("refuses %p with the API's reason", async (url, stderr) => {
    const r = await cli(["webhook", "set", "--account", "shop", "--url", url, "--config", local]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr });
  });

  test("an unknown account fails with exit 1", async () => {
    const r = await cli(["webhook", "set", "--account", "nobody", "--url", "http://127.0.0.1:9000/hook", "--config", local]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr: "chainwatch: no such account: nobody\n" });
  });

  test("sets the URL and switches the webhook on, printing the settings as GET /v1/address-watch/webhook does", async () => {
    const r = await cli(["webhook", "set", "--account", "shop", "--url", "http://127.0.0.1:9000/hook", "--enabled", "--json", "--config", local]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ url: "http://127.0.0.1:9000/hook", enabled: true, events: FILTERS, egress_ips: ["203.0.113.7"], delivery: { max_rps: 0 } });
  });

  test("without --enabled the current on/off setting is kept; --no-enabled switches it off", async () => {
    const kept = await cli(["webhook", "set", "--account", "shop", "--url", "http://127.0.0.1:9001/other", "--json", "--config", local]);
    expect(JSON.parse(kept.stdout)).toMatchObject({ url: "http://127.0.0.1:9001/other", enabled: true });
    const off = await cli(["webhook", "set", "--account", "shop", "--url", "http://127.0.0.1:9001/other", "--no-enabled", "--json", "--config", local]);
    expect(JSON.parse(off.stdout)).toMatchObject({ url: "http://127.0.0.1:9001/other", enabled: false });
  });

  test("--url is required", async () => {
    const r = await cli(["webhook", "set", "--account", "shop", "--config", local]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 2, stderr: "chainwatch: Missing required argument: --url (see --help)\n" });
  });
});
