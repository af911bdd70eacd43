import type { TransportOptions } from "./transport.ts";

// createClient checks what it is given before it returns: an option left undefined (an unset
// environment variable read with `process.env.SECRET!`) would otherwise surface on the first call
// as a TypeError from deep inside Web Crypto, far from the line that caused it. Values are never
// echoed: a secret in an exception message ends up in logs.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SECRET = /^[0-9a-f]{64}$/i;

/** What a value is, in words that never show it: `undefined`, `a number`, `an empty string`, `a 12-character string`. */
function described(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (typeof value === "string") return value === "" ? "an empty string" : `a ${value.length}-character string`;
  if (Array.isArray(value)) return "an array";
  return /^[aeiou]/.test(typeof value) ? `an ${typeof value}` : `a ${typeof value}`;
}

/** Why `options` cannot make a client, or null when they can. */
export function clientOptionsProblem(options: unknown): string | null {
  if (typeof options !== "object" || options === null || Array.isArray(options))
    return `createClient needs an options object { baseUrl, apiKey, secret } (got ${described(options)})`;
  const o = options as Record<string, unknown>;
  if (typeof o.baseUrl !== "string" || !/^https?:\/\/[^/]/i.test(o.baseUrl) || !URL.canParse(o.baseUrl))
    return `createClient: baseUrl must be the daemon's absolute http(s) address, e.g. "http://127.0.0.1:8787" (got ${described(o.baseUrl)})`;
  if (typeof o.apiKey !== "string" || !UUID.test(o.apiKey))
    return `createClient: apiKey must be the key's id, a UUID, printed as api_key by \`chainwatch keys create\` (got ${described(o.apiKey)})`;
  if (typeof o.secret === "string" && o.secret.startsWith("whsec_"))
    return "createClient: secret is a webhook secret (whsec_…), which verifies webhooks; pass the API key's secret, 64 hex characters printed by `chainwatch keys create`";
  if (typeof o.secret !== "string" || !SECRET.test(o.secret))
    return `createClient: secret must be the API key's secret, 64 hex characters printed once by \`chainwatch keys create\` (got ${described(o.secret)})`;
  for (const name of ["fetch", "now", "sleep"] as const)
    if (o[name] !== undefined && typeof o[name] !== "function") return `createClient: ${name} must be a function when given (got ${described(o[name])})`;
  if (o.maxRetries !== undefined && !(Number.isSafeInteger(o.maxRetries) && (o.maxRetries as number) >= 0))
    return `createClient: maxRetries must be a whole number, 0 or more, when given (got ${typeof o.maxRetries === "number" ? o.maxRetries : described(o.maxRetries)})`;
  return null;
}

/** The options as given, or a TypeError saying which one is wrong and what it should be. */
export function checkClientOptions(options: TransportOptions): TransportOptions {
  const problem = clientOptionsProblem(options);
  if (problem) throw new TypeError(problem);
  return options;
}
