import { describe, expect, test } from "bun:test";
import { createEndpointHealth, FAILING_AFTER } from "../../src/delivery/endpoint-health.ts";
import type { Logger } from "../../src/lib/log.ts";

function capture() {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, fields });
  const log: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  return { log, lines };
}

let t = 1_000_000;
const ok = (url: string, at = (t += 100)) => ({ url, startedAt: at, error: null, statusCode: 200 });
const fail = (url: string, error = "http 500", at = (t += 100)) => ({
  url,
  startedAt: at,
  error,
  statusCode: error.startsWith("http ") ? Number(error.slice(5)) : null,
});

/** Five failures in a row of one endpoint: enough to call it failing. */
function failRun(h: ReturnType<typeof createEndpointHealth>, account: string, url: string, first = 1) {
  for (let i = 0; i < FAILING_AFTER.failures; i++) h.record(account, `dlv_${first + i}`, fail(url));
}

describe("an endpoint is logged failing after a sustained run of failures, recovered once after it", () => {
  test("five failures in a row log one warn; the first success after them one info; successes alone nothing", () => {
    const { log, lines } = capture();
    const h = createEndpointHealth(log);
    h.record("acc_1", "dlv_0", ok("http://r.example/hook"));
    failRun(h, "acc_1", "http://r.example/hook");
    h.record("acc_1", "dlv_6", fail("http://r.example/hook", "timeout"));
    h.record("acc_1", "dlv_7", ok("http://r.example/hook"));
    h.record("acc_1", "dlv_8", ok("http://r.example/hook"));
    expect(lines).toEqual([
      {
        level: "warn",
        msg: "webhook endpoint failing",
        fields: { account_id: "acc_1", url: "http://r.example", delivery_id: "dlv_5", error: "http 500", status_code: 500, failures: 5 },
      },
      { level: "info", msg: "webhook endpoint recovered", fields: { account_id: "acc_1", url: "http://r.example", delivery_id: "dlv_7" } },
    ]);
  });

  test("four failures then a success log nothing", () => {
    const { log, lines } = capture();
    const h = createEndpointHealth(log);
    for (let i = 0; i < FAILING_AFTER.failures - 1; i++) h.record("acc_1", `dlv_${i}`, fail("http://r.example/"));
    h.record("acc_1", "dlv_9", ok("http://r.example/"));
    expect(lines).toEqual([]);
  });

  test("two failures 60 s apart with nothing in between are a sustained run", () => {
    const { log, lines } = capture();
    const h = createEndpointHealth(log);
    h.record("acc_1", "dlv_1", fail("http://r.example/", "http 502", 5_000_000));
    h.record("acc_1", "dlv_2", fail("http://r.example/", "http 502", 5_000_000 + FAILING_AFTER.ms - 1));
    expect(lines).toEqual([]);
    h.record("acc_1", "dlv_3", fail("http://r.example/", "http 502", 5_000_000 + FAILING_AFTER.ms));
    expect(lines.map((l) => [l.msg, l.fields?.delivery_id, l.fields?.failures])).toEqual([["webhook endpoint failing", "dlv_3", 3]]);
  });

  test("1 % of answers failing, spread over 10,000 attempts, logs no failing/recovered pair", () => {
    const { log, lines } = capture();
    const h = createEndpointHealth(log);
    for (let i = 0; i < 10_000; i++) h.record("acc_1", `dlv_${i}`, i % 100 === 37 ? fail("http://r.example/") : ok("http://r.example/"));
    expect(lines).toEqual([]);
  });

  test("a sustained outage among healthy traffic logs exactly one failing and one recovered", () => {
    const { log, lines } = capture();
    const h = createEndpointHealth(log);
    let n = 0;
    const record = (healthy: boolean) => h.record("acc_1", `dlv_${n++}`, healthy ? ok("http://r.example/") : fail("http://r.example/", "http 503"));
    for (let i = 0; i < 1000; i++) record(i % 100 !== 50);
    for (let i = 0; i < 500; i++) record(false);
    for (let i = 0; i < 1000; i++) record(i % 100 !== 50);
    expect(lines.map((l) => l.msg)).toEqual(["webhook endpoint failing", "webhook endpoint recovered"]);
  });

  test("endpoints are tracked apart: another URL or another account fails on its own line", () => {
    const { log, lines } = capture();
    const h = createEndpointHealth(log);
    failRun(h, "acc_1", "http://a.example/");
    failRun(h, "acc_1", "http://b.example/");
    failRun(h, "acc_2", "http://a.example/");
    failRun(h, "acc_1", "http://a.example/");
    expect(lines.map((l) => [l.fields?.account_id, l.fields?.url])).toEqual([
      ["acc_1", "http://a.example"],
      ["acc_1", "http://b.example"],
      ["acc_2", "http://a.example"],
    ]);
  });

  test("the path and query string (where receivers keep tokens) are never logged", () => {
    const { log, lines } = capture();
    failRun(createEndpointHealth(log), "acc_1", "https://r.example/services/T1/p4thsecret?token=s3cret#x");
    expect(lines[0].fields?.url).toBe("https://r.example");
    expect(JSON.stringify(lines)).not.toContain("s3cret");
    expect(JSON.stringify(lines)).not.toContain("p4thsecret");
  });

  test("two URLs on one host are two endpoints, though logged alike", () => {
    const { log, lines } = capture();
    const h = createEndpointHealth(log);
    failRun(h, "acc_1", "http://r.example/one", 1);
    failRun(h, "acc_1", "http://r.example/two", 11);
    expect(lines.map((l) => l.fields?.delivery_id)).toEqual(["dlv_5", "dlv_15"]);
  });

  test("a delivery with no target (no URL set) is one failing endpoint of its account", () => {
    const { log, lines } = capture();
    const h = createEndpointHealth(log);
    for (let i = 1; i <= 6; i++) h.record("acc_1", `dlv_${i}`, { url: null, startedAt: (t += 100), error: "no webhook URL", statusCode: null });
    expect(lines).toEqual([
      {
        level: "warn",
        msg: "webhook endpoint failing",
        fields: { account_id: "acc_1", url: null, delivery_id: "dlv_5", error: "no webhook URL", status_code: null, failures: 5 },
      },
    ]);
  });

  test("memory is bounded: past `max` endpoints in a run of failures the oldest is forgotten", () => {
    const { log, lines } = capture();
    const h = createEndpointHealth(log, 2);
    failRun(h, "acc_1", "http://a.example/", 10);
    failRun(h, "acc_1", "http://b.example/", 20);
    failRun(h, "acc_1", "http://c.example/", 30);
    // a was forgotten, so its next run is news again; c is still remembered.
    failRun(h, "acc_1", "http://a.example/", 40);
    failRun(h, "acc_1", "http://c.example/", 50);
    expect(lines.map((l) => l.fields?.delivery_id)).toEqual(["dlv_14", "dlv_24", "dlv_34", "dlv_44"]);
  });
});
