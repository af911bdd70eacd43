import { describe, expect, it } from "bun:test";
import { DEFAULT_ENDPOINT_FILTERS, DEFAULT_FILTERS, type FilterPatch, mergeFilters, parseStoredFilters, type WatchFilters } from "../../src/webhooks/filters.ts";
import { EndpointFilterPatchSchema, FilterPatchSchema, parseWebhookUpdate, validateFilterPatch } from "../../src/webhooks/settings.ts";

const NETWORKS = new Set(["eth", "bsc", "btc", "tron", "sol", "polygon"]);
const isNetwork = (slug: string) => NETWORKS.has(slug);

const CUSTOM: WatchFilters = {
  payment: false,
  payment_networks: ["eth"],
  payout: true,
  payout_networks: ["btc", "tron"],
  block: false,
  block_networks: [],
  min_confirmations: 6,
};

describe("mergeFilters", () => {
  it.each<[string, WatchFilters, Partial<WatchFilters> | undefined, WatchFilters]>([
    ["keeps everything when events is left out", CUSTOM, undefined, CUSTOM],
    ["keeps everything for an empty patch", CUSTOM, {}, CUSTOM],
    ["replaces only a boolean key given", CUSTOM, { payment: true }, { ...CUSTOM, payment: true }],
    ["replaces a list outright rather than appending", CUSTOM, { payout_networks: ["sol"] }, { ...CUSTOM, payout_networks: ["sol"] }],
    ["clears a list to mean all networks", CUSTOM, { payment_networks: [] }, { ...CUSTOM, payment_networks: [] }],
    [
      "replaces several keys and keeps the rest",
      DEFAULT_FILTERS,
      { block: false, payment_networks: ["eth", "bsc"] },
      { ...DEFAULT_FILTERS, block: false, payment_networks: ["eth", "bsc"] },
    ],
    ["replaces every key when all are given", DEFAULT_FILTERS, CUSTOM, CUSTOM],
  ])("%s", (_case, current, patch, expected) => {
    expect(mergeFilters(current, patch)).toEqual(expected);
  });

  it("does not modify the current filters it merges into", () => {
    const current = structuredClone(CUSTOM);
    mergeFilters(current, { payment: true, payment_networks: [] });
    expect(current).toEqual(CUSTOM);
  });
});

describe("validateFilterPatch", () => {
  it.each<[string, unknown, FilterPatch]>([
    ["accepts an empty patch", {}, {}],
    ["accepts every key", CUSTOM, CUSTOM],
    ["accepts known networks", { block_networks: ["eth", "sol"] }, { block_networks: ["eth", "sol"] }],
    ["drops duplicate networks, keeping the order given", { payment_networks: ["bsc", "eth", "bsc"] }, { payment_networks: ["bsc", "eth"] }],
  ])("%s", (_case, patch, expected) => {
    expect(validateFilterPatch(FilterPatchSchema, patch, isNetwork)).toEqual({ ok: true, value: expected });
  });

  it.each<[string, unknown, string]>([
    ["an unknown key", { payments: true }, "events.payments is not a known field"],
    ["an unknown key beside valid ones", { payment: true, blocks: false }, "events.blocks is not a known field"],
    ["a string for a boolean", { payout: "true" }, "events.payout must be a boolean"],
    ["a number for a boolean", { block: 1 }, "events.block must be a boolean"],
    ["null for a boolean", { payment: null }, "events.payment must be a boolean"],
    ["a string for a list", { payment_networks: "eth" }, "events.payment_networks must be an array"],
    ["a boolean for a list", { block_networks: true }, "events.block_networks must be an array"],
    ["a number inside a list", { payout_networks: ["eth", 5] }, "events.payout_networks[1] must be a string"],
    ["an unknown network", { payment_networks: ["eth", "doge"] }, "Unknown network: doge"],
    ["a network name in the wrong case", { block_networks: ["ETH"] }, "Unknown network: ETH"],
    ["an object prototype key as a network", { block_networks: ["__proto__"] }, "Unknown network: __proto__"],
    ["an array instead of an object", [], "events must be an object"],
    ["null instead of an object", null, "events must be an object"],
  ])("refuses %s", (_case, patch, error) => {
    expect(validateFilterPatch(FilterPatchSchema, patch, isNetwork)).toEqual({ ok: false, code: "INVALID_INPUT", error });
  });

  it("takes payment_order in an endpoint's filters, not in the seed webhook's", () => {
    expect(validateFilterPatch(EndpointFilterPatchSchema, { payment_order: false }, isNetwork)).toEqual({ ok: true, value: { payment_order: false } });
    expect(validateFilterPatch(FilterPatchSchema, { payment_order: false }, isNetwork)).toEqual({
      ok: false,
      code: "INVALID_INPUT",
      error: "events.payment_order is not a known field",
    });
  });
});

describe("parseWebhookUpdate", () => {
  it.each<[string, unknown, unknown]>([
    ["a URL, enabled", { url: "https://hooks.example.com/x", enabled: true }, { url: "https://hooks.example.com/x", enabled: true }],
    ["a URL, disabled", { url: "https://hooks.example.com/x", enabled: false }, { url: "https://hooks.example.com/x", enabled: false }],
    ["no URL, disabled", { url: null, enabled: false }, { url: null, enabled: false }],
    [
      "an events patch",
      { url: null, enabled: false, events: { block: false } },
      { url: null, enabled: false, events: { block: false } },
    ],
    ["the read-only egress_ips sent back from a GET", { url: null, enabled: false, egress_ips: ["203.0.113.7"] }, { url: null, enabled: false }],
  ])("accepts %s", (_case, body, value) => {
    expect(parseWebhookUpdate(body, isNetwork)).toEqual({ ok: true, value } as never);
  });

  it.each<[string, unknown, string]>([
    ["a missing url", { enabled: false }, "url is required"],
    ["a missing enabled", { url: null }, "enabled is required"],
    ["an empty body", {}, "url is required"],
    ["a number for url", { url: 42, enabled: false }, "url must be a string or null"],
    ["a string for enabled", { url: null, enabled: "true" }, "enabled must be a boolean"],
    ["enabled without a URL", { url: null, enabled: true }, "url is required when enabled is true"],
    ["an over-long URL", { url: `https://hooks.example.com/${"a".repeat(2048)}`, enabled: false }, "url must be at most 2048 characters"],
    ["an unknown top-level field", { url: null, enabled: false, secret: "x" }, "secret is not a known field"],
    ["an unknown filter key", { url: null, enabled: false, events: { all: true } }, "events.all is not a known field"],
    ["an unknown network in a filter", { url: null, enabled: false, events: { payout_networks: ["ropsten"] } }, "Unknown network: ropsten"],
    ["a non-object body", ["url"], "body must be an object"],
  ])("refuses %s", (_case, body, error) => {
    expect(parseWebhookUpdate(body, isNetwork)).toEqual({ ok: false, code: "INVALID_INPUT", error });
  });
});

describe("parseStoredFilters", () => {
  it("fills keys missing from an older stored row with their defaults", () => {
    expect(parseStoredFilters('{"payment":false}')).toEqual({ ...DEFAULT_ENDPOINT_FILTERS, payment: false });
    expect(DEFAULT_ENDPOINT_FILTERS).toEqual({ ...DEFAULT_FILTERS, payment_order: true });
  });

  it("ignores stored keys that are no longer filters", () => {
    expect(parseStoredFilters('{"block":false,"legacy":1}')).toEqual({ ...DEFAULT_ENDPOINT_FILTERS, block: false });
  });
});
