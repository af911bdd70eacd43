import { describe, expect, test } from "bun:test";
import { createClient } from "chainwatch/client";

// createClient refuses options that cannot work when it is called, naming the option, rather than
// letting the first request fail inside Web Crypto (`TypeError … bytes.length` for an unset secret).

const API_KEY = "3f1c2b4a-0000-4000-8000-000000000000";
const SECRET = "ab".repeat(32);
const BASE = { baseUrl: "http://127.0.0.1:8787", apiKey: API_KEY, secret: SECRET };

/** The TypeError createClient throws for these options, as its message. */
function refusal(options: unknown): string {
  try {
    createClient(options as Parameters<typeof createClient>[0]);
  } catch (e) {
    expect(e).toBeInstanceOf(TypeError);
    return (e as Error).message;
  }
  throw new Error("createClient accepted the options");
}

describe("createClient checks its options", () => {
  test("an unset secret (process.env.SECRET!) is refused at creation, naming the option", () => {
    expect(refusal({ ...BASE, secret: undefined })).toBe(
      "createClient: secret must be the API key's secret, 64 hex characters printed once by `chainwatch keys create` (got undefined)",
    );
  });

  test.each<[string, unknown, string]>([
    ["no options at all", undefined, "createClient needs an options object { baseUrl, apiKey, secret } (got undefined)"],
    ["a string for options", "http://127.0.0.1:8787", "createClient needs an options object { baseUrl, apiKey, secret } (got a 21-character string)"],
    ["an unset baseUrl", { ...BASE, baseUrl: undefined }, 'createClient: baseUrl must be the daemon\'s absolute http(s) address, e.g. "http://127.0.0.1:8787" (got undefined)'],
    ["a baseUrl without a scheme", { ...BASE, baseUrl: "127.0.0.1:8787" }, 'createClient: baseUrl must be the daemon\'s absolute http(s) address, e.g. "http://127.0.0.1:8787" (got a 14-character string)'],
    ["an unset apiKey", { ...BASE, apiKey: undefined }, "createClient: apiKey must be the key's id, a UUID, printed as api_key by `chainwatch keys create` (got undefined)"],
    ["the secret given as apiKey", { ...BASE, apiKey: SECRET }, "createClient: apiKey must be the key's id, a UUID, printed as api_key by `chainwatch keys create` (got a 64-character string)"],
    ["an empty secret", { ...BASE, secret: "" }, "createClient: secret must be the API key's secret, 64 hex characters printed once by `chainwatch keys create` (got an empty string)"],
    ["a number for the secret", { ...BASE, secret: 42 }, "createClient: secret must be the API key's secret, 64 hex characters printed once by `chainwatch keys create` (got a number)"],
    [
      "the account's webhook secret for the key's",
      { ...BASE, secret: "whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0" },
      "createClient: secret is a webhook secret (whsec_…), which verifies webhooks; pass the API key's secret, 64 hex characters printed by `chainwatch keys create`",
    ],
    ["a fetch that is not a function", { ...BASE, fetch: {} }, "createClient: fetch must be a function when given (got an object)"],
    ["a negative maxRetries", { ...BASE, maxRetries: -1 }, "createClient: maxRetries must be a whole number, 0 or more, when given (got -1)"],
    ["a fractional maxRetries", { ...BASE, maxRetries: 1.5 }, "createClient: maxRetries must be a whole number, 0 or more, when given (got 1.5)"],
  ])("%s is refused", (_case, options, message) => {
    expect(refusal(options)).toBe(message);
  });

  test("no message shows the value it refused", () => {
    const leaked = "f".repeat(63);
    expect(refusal({ ...BASE, secret: leaked })).not.toContain(leaked);
  });

  test("options that can work make a client: upper-case hex, a path prefix, every optional option", () => {
    const client = createClient({ ...BASE, baseUrl: "https://api.example/chainwatch/", secret: SECRET.toUpperCase(), maxRetries: 0, fetch, now: Date.now, sleep: async () => {} });
    expect(typeof client.getAccount).toBe("function");
  });
});
