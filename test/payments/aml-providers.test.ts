import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openContext, StartupError, startDaemon } from "../../src/daemon.ts";
import { httpScreener } from "../../src/payments/aml/http.ts";
import { loadRiskList, localScreener, parseRiskList } from "../../src/payments/aml/local.ts";
import type { ScreeningResult } from "../../src/payments/aml/screening.ts";
import { amlRetryDelay } from "../../src/payments/aml/worker.ts";
import { testConfig } from "../support/harness.ts";

const CLEAN: ScreeningResult = { score: 0, risk_level: "low", hacking_event: "", detail_list: [], risk_detail: [], address_label: "" };
const HACKER = "0x00000000000000000000000000000000000bad01";

describe("the local risk list", () => {
  test("looks listed senders up case-insensitively for hex addresses", async () => {
    const parsed = parseRiskList(
      JSON.stringify([
        {
          address: HACKER.toUpperCase().replace("0X", "0x"),
          score: 92,
          risk_level: "severe",
          hacking_event: "Bridge exploit",
          address_label: "Exploiter 1",
          detail_list: ["Hacker"],
          risk_detail: [{ type: "hacker", volume: 1 }],
        },
      ]),
    );
    if (!parsed.ok) throw new Error(parsed.error);
    expect(await localScreener(parsed.list)({ network: "eth", address: HACKER, txHash: "0x1" })).toEqual({
      ok: true,
      result: {
        score: 92,
        risk_level: "severe",
        hacking_event: "Bridge exploit",
        detail_list: ["Hacker"],
        risk_detail: [{ type: "hacker", volume: 1 }],
        address_label: "Exploiter 1",
      },
    });
  });

  test("answers score 0, low and empty strings and lists for an unlisted or unknown sender", async () => {
    const parsed = parseRiskList("[]");
    if (!parsed.ok) throw new Error(parsed.error);
    const screen = localScreener(parsed.list);
    expect(await screen({ network: "eth", address: HACKER, txHash: null })).toEqual({ ok: true, result: CLEAN });
    expect(await screen({ network: "eth", address: null, txHash: null })).toEqual({ ok: true, result: CLEAN });
  });

  test("fills fields an entry leaves out like an unlisted address", () => {
    const parsed = parseRiskList(JSON.stringify([{ address: "TXYZ", risk_level: "medium" }]));
    expect(parsed.ok && parsed.list.get("TXYZ")).toEqual({ ...CLEAN, risk_level: "medium" });
  });

  test.each([
    ["not JSON", "[", /^not valid JSON: /],
    ["not an array", "{}", /^body must be an array$/],
    ["an entry without address", '[{"risk_level":"low"}]', /^\[0\]\.address is required$/],
    ["an unknown risk level", '[{"address":"a","risk_level":"low"},{"address":"b","risk_level":"critical"}]', /^\[1\]\.risk_level must be one of low, medium, high, severe$/],
    ["a string score", '[{"address":"a","risk_level":"low","score":"9"}]', /^\[0\]\.score must be a number$/],
  ])("refuses a list that is %s, naming the problem", (_name, text, error) => {
    const parsed = parseRiskList(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(error);
  });

  test("an empty risk_list path means no list", () => {
    const loaded = loadRiskList("");
    expect(loaded.ok && loaded.list.size).toBe(0);
  });

  test("a missing file names the config key and the path", () => {
    const loaded = loadRiskList("/nonexistent/risk.json");
    expect(loaded.ok).toBe(false);
    if (!loaded.ok) expect(loaded.error).toStartWith("config key `aml.risk_list`: cannot read /nonexistent/risk.json: ");
  });

  test("a bad risk list file stops daemon start-up with the key, the path and the reason", async () => {
    const dir = mkdtempSync(join(tmpdir(), "chainwatch-aml-"));
    try {
      const file = join(dir, "risk.json");
      writeFileSync(file, '[{"address":"0xabc","risk_level":"extreme"}]');
      const ctx = await openContext(testConfig(dir, { aml: { risk_list: file } }), { env: {} });
      try {
        const started = startDaemon(ctx);
        await expect(started).rejects.toBeInstanceOf(StartupError);
        await expect(started).rejects.toThrow(`config key \`aml.risk_list\`: ${file}: [0].risk_level must be one of low, medium, high, severe`);
      } finally {
        await ctx.db.destroy();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the http provider", () => {
  type Reply = () => Response | Promise<Response>;
  let reply: Reply = () => Response.json({});
  const requests: { body: string; contentType: string | null }[] = [];
  let server: ReturnType<typeof Bun.serve>;
  let url: string;

  beforeAll(() => {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        requests.push({ body: await req.text(), contentType: req.headers.get("content-type") });
        return reply();
      },
    });
    url = `http://127.0.0.1:${server.port}/screen`;
  });
  afterAll(async () => {
    await server.stop(true);
  });

  // 10 s to answer unless told (a loaded machine can hold a local answer past a short timeout); the
  // timeout test sets its own short one.
  const screen = (timeoutMs = 10_000) => httpScreener({ url, timeoutMs, allowPrivate: true })({ network: "eth", address: HACKER, txHash: "0xfeed" });

  test("POSTs {network, address, tx_hash} as JSON and keeps only the AML fields of the answer", async () => {
    reply = () =>
      Response.json({ risk_level: "high", score: 80, address_label: "Mixer", provider: "acme", report_url: "https://acme/r/1" });
    const before = requests.length;
    expect(await screen()).toEqual({ ok: true, result: { ...CLEAN, risk_level: "high", score: 80, address_label: "Mixer" } });
    expect(requests[before]).toEqual({
      body: JSON.stringify({ network: "eth", address: HACKER, tx_hash: "0xfeed" }),
      contentType: "application/json",
    });
  });

  test.each([
    ["a 500", () => new Response("boom", { status: 500 }), "HTTP 500: boom"],
    ["a redirect", () => new Response(null, { status: 302, headers: { Location: "http://127.0.0.1:1/" } }), "HTTP 302: "],
    ["a body that is not JSON", () => new Response("<html>"), "answer is not JSON: <html>"],
    ["JSON without risk_level", () => Response.json({ score: 1 }), "bad answer: risk_level is required"],
    ["an unknown risk_level", () => Response.json({ risk_level: "none" }), "bad answer: risk_level must be one of low, medium, high, severe"],
  ])("reports %s as a failure to retry", async (_name, r, error) => {
    reply = r as Reply;
    expect(await screen()).toEqual({ ok: false, code: "AML_UNAVAILABLE", error });
  });

  test("reports an answer slower than the timeout as a failure", async () => {
    reply = () => Bun.sleep(300).then(() => Response.json({ risk_level: "low" }));
    expect(await screen(50)).toEqual({ ok: false, code: "AML_UNAVAILABLE", error: "timed out after 50 ms" });
  });

  test("reports a refused connection as a failure", async () => {
    const outcome = await httpScreener({ url: "http://127.0.0.1:1/screen", timeoutMs: 1000, allowPrivate: true })({ network: "eth", address: null, txHash: null });
    expect(outcome.ok).toBe(false);
  });
});

describe("AML retry backoff", () => {
  test.each([
    [1, 1_000],
    [2, 2_000],
    [3, 5_000],
    [4, 10_000],
    [5, 30_000],
    [6, 60_000],
    [50, 60_000],
  ])("after %i failed attempts waits %i ms", (attempts, ms) => {
    expect(amlRetryDelay(attempts)).toBe(ms);
  });
});
