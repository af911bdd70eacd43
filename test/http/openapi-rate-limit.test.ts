import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { SCHEMAS } from "../../src/http/openapi/schemas.ts";
import { startTestDaemon, type TestDaemon } from "../support/harness.ts";

// The OpenAPI document describes the webhook's delivery rate limit as GET and PUT
// /v1/address-watch/webhook carry it (docs/api.md).

type Json = Record<string, any>;
let td: TestDaemon;
let doc: Json;

beforeAll(async () => {
  td = await startTestDaemon({ config: { rate_limit: { per_key_rps: 1000 } } });
  doc = (await (await fetch(`${td.url}/openapi/json`)).json()) as Json;
});
afterAll(async () => {
  await td.stop();
});

describe("the webhook's delivery rate limit in /openapi/json", () => {
  test("GET's WebhookSettings always has delivery.max_rps, an integer 0-10000", () => {
    const settings = doc.components.schemas.WebhookSettings;
    expect(settings.required).toContain("delivery");
    expect(settings.properties.delivery.required).toEqual(["max_rps"]);
    expect(settings.properties.delivery.properties.max_rps).toMatchObject({ type: "integer", minimum: 0, maximum: 10000 });
  });

  test("PUT's WebhookUpdate takes an optional delivery with an optional max_rps and nothing else", () => {
    const update = doc.components.schemas.WebhookUpdate;
    expect(update.required ?? []).not.toContain("delivery");
    expect(update.properties.delivery).toMatchObject({ type: "object", additionalProperties: false });
    expect(update.properties.delivery.required ?? []).toEqual([]);
    expect(update.properties.delivery.properties.max_rps).toMatchObject({ type: "integer", minimum: 0, maximum: 10000 });
  });

  test("what GET answers checks against the documented schema", async () => {
    const c = await td.client();
    await c.request("PUT", "/v1/address-watch/webhook", { url: null, enabled: false, delivery: { max_rps: 30 } });
    const body = await (await c.request("GET", "/v1/address-watch/webhook")).json();
    expect(Value.Check(SCHEMAS.WebhookSettings, body)).toBe(true);
    expect(Value.Check(SCHEMAS.WebhookSettings, { ...(body as Json), delivery: undefined })).toBe(false);
  });
});
