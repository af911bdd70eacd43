import { describe, expect, test } from "bun:test";
import { createEndpointHealth } from "../../src/delivery/endpoint-health.ts";
import type { Logger } from "../../src/lib/log.ts";

function capture() {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, fields });
  const log: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  return { log, lines };
}

const ok = (url: string) => ({ url, error: null, statusCode: 200 });
const fail = (url: string, error = "http 500") => ({ url, error, statusCode: error.startsWith("http ") ? Number(error.slice(5)) : null });

describe("delivery failures are logged once per state change per endpoint", () => {
  test("a run of failures logs one warn; the first success after them one info; successes alone nothing", () => {
    const { log, lines } = capture();
    const h = createEndpointHealth(log);
    h.record("acc_1", "dlv_1", ok("http://r.example/hook"));
    h.record("acc_1", "dlv_2", fail("http://r.example/hook"));
    h.record("acc_1", "dlv_3", fail("http://r.example/hook", "timeout"));
    h.record("acc_1", "dlv_2", fail("http://r.example/hook"));
    h.record("acc_1", "dlv_4", ok("http://r.example/hook"));
    h.record("acc_1", "dlv_5", ok("http://r.example/hook"));
    expect(lines).toEqual([
      {
        level: "warn",
        msg: "webhook endpoint failing",
        fields: { account_id: "acc_1", url: "http://r.example", delivery_id: "dlv_2", error: "http 500", status_code: 500 },
      },
      { level: "info", msg: "webhook endpoint recovered", fields: { account_id: "acc_1", url: "http://r.example", delivery_id: "dlv_4" } },
    ]);
  });

  test("endpoints are tracked apart: another URL or another account fails on its own line", () => {
    const { log, lines } = capture();
    const h = createEndpointHealth(log);
    h.record("acc_1", "dlv_1", fail("http://a.example/"));
    h.record("acc_1", "dlv_2", fail("http://b.example/"));
    h.record("acc_2", "dlv_3", fail("http://a.example/"));
    h.record("acc_1", "dlv_4", fail("http://a.example/"));
    expect(lines.map((l) => [l.fields?.account_id, l.fields?.url])).toEqual([
      ["acc_1", "http://a.example"],
      ["acc_1", "http://b.example"],
      ["acc_2", "http://a.example"],
    ]);
  });

  test("the path and query string (where receivers keep tokens) are never logged", () => {
    const { log, lines } = capture();
    createEndpointHealth(log).record("acc_1", "dlv_1", fail("https://r.example/services/T1/p4thsecret?token=s3cret#x"));
    expect(lines[0].fields?.url).toBe("https://r.example");
    expect(JSON.stringify(lines)).not.toContain("s3cret");
    expect(JSON.stringify(lines)).not.toContain("p4thsecret");
  });

  test("two URLs on one host are two endpoints, though logged alike", () => {
    const { log, lines } = capture();
    const h = createEndpointHealth(log);
    h.record("acc_1", "dlv_1", fail("http://r.example/one"));
    h.record("acc_1", "dlv_2", fail("http://r.example/two"));
    expect(lines.map((l) => l.fields?.delivery_id)).toEqual(["dlv_1", "dlv_2"]);
  });

  test("a delivery with no target (no URL set) is one failing endpoint of its account", () => {
    const { log, lines } = capture();
    const h = createEndpointHealth(log);
    h.record("acc_1", "dlv_1", { url: null, error: "no webhook URL", statusCode: null });
    h.record("acc_1", "dlv_2", { url: null, error: "no webhook URL", statusCode: null });
    expect(lines).toEqual([
      { level: "warn", msg: "webhook endpoint failing", fields: { account_id: "acc_1", url: null, delivery_id: "dlv_1", error: "no webhook URL", status_code: null } },
    ]);
  });

  test("memory is bounded: past `max` endpoints the oldest is forgotten", () => {
    const { log, lines } = capture();
    const h = createEndpointHealth(log, 2);
    h.record("acc_1", "d1", fail("http://a.example/"));
    h.record("acc_1", "d2", fail("http://b.example/"));
    h.record("acc_1", "d3", fail("http://c.example/"));
    // a was forgotten, so its next failure is news again; c is still remembered.
    h.record("acc_1", "d4", fail("http://a.example/"));
    h.record("acc_1", "d5", fail("http://c.example/"));
    expect(lines.map((l) => l.fields?.delivery_id)).toEqual(["d1", "d2", "d3", "d4"]);
  });
});
