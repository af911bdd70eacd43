import { describe, expect, test } from "bun:test";
import { REDACTED, redactJson, redactorOf, urlSecrets } from "../../src/upstream/redaction.ts";

const R = REDACTED;

describe("the secrets of an upstream URL", () => {
  test("credentials as written and decoded, their Basic authorization value, key-like path segments and query values", () => {
    const key = "0123456789abcdef0123456789abcdef";
    expect(urlSecrets(`https://rpc%40user:p%3Ass@node.example:8545/v3/${key}?apikey=qqqqqqqqqqqqqqqq&chain=1`).sort()).toEqual(
      [
        "rpc%40user",
        "rpc@user",
        "p%3Ass",
        "p:ss",
        Buffer.from("rpc@user:p:ss").toString("base64"),
        key,
        key,
        "qqqqqqqqqqqqqqqq",
        "qqqqqqqqqqqqqqqq",
      ].sort(),
    );
  });

  test("a URL without any has none worth redacting; an unreadable one has none", () => {
    expect(urlSecrets("http://127.0.0.1:8545/rpc").filter((s) => s !== "")).toEqual([]);
    expect(urlSecrets("not a url")).toEqual([]);
  });
});

describe("redaction", () => {
  const redact = redactorOf(["tron-api-key-5f0c2a", "s3cret", "", 'quo"te']);

  test.each([
    ["the node refused key tron-api-key-5f0c2a", `the node refused key ${R}`],
    ["KEY TRON-API-KEY-5F0C2A IN CAPITALS", `KEY ${R} IN CAPITALS`],
    ["pass s3cret and s3cret again", `pass ${R} and ${R} again`],
    ['as JSON: "quo\\"te"', `as JSON: "${R}"`],
    ["nothing secret here", "nothing secret here"],
    // A preview cut a secret off: its start goes too, when it is 4 characters or more.
    ['(\\"tron-api-k...)', `(\\"${R}...)`],
    ['("s3c...) and ("tron...)', `("s3c...) and ("${R}...)`],
    ["ends in tron-api-key-5f0c2...", `ends in ${R}...`],
  ])("%j reads %j", (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  test("without secrets a text is handed back as it is", () => {
    const text = "anything at all...";
    expect(redactorOf(["", ""])(text)).toBe(text);
  });

  test("a secret holding regular-expression characters is matched as text", () => {
    expect(redactorOf(["a.b*c(d)[e]/f\\g"])("x a.b*c(d)[e]/f\\g y axbbc")).toBe(`x ${R} y axbbc`);
  });

  test("a text full of cut marks is searched for a bounded number of them", () => {
    const noisy = "tron...".repeat(100_000);
    const out = redact(noisy);
    expect(out.startsWith(`${R}...`.repeat(16))).toBe(true);
    expect(out.length).toBe(noisy.length + 16 * (R.length - 4));
  });
});

describe("redaction of a JSON value", () => {
  const redact = redactorOf(["s3cret-value"]);

  test("every string and member name, at any depth; what holds none is the same value", () => {
    const clean = { code: -32000, data: [1, "ok", { nested: ["fine"] }] };
    const dirty = { code: -32000, message: "key s3cret-value", data: [1, "ok", { "s3cret-value": ["fine", "S3CRET-VALUE"] }] };
    expect(redactJson(clean, redact)).toBe(clean);
    expect(redactJson(dirty, redact)).toEqual({ code: -32000, message: `key ${R}`, data: [1, "ok", { [R]: ["fine", R] }] });
    expect(dirty.message).toBe("key s3cret-value");
  });

  test("a member named __proto__ stays a member of the copy", () => {
    const parsed = JSON.parse('{"__proto__":{"m":"s3cret-value"},"x":1}');
    const out = redactJson(parsed, redact) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe(`{"__proto__":{"m":"${R}"},"x":1}`);
  });
});
