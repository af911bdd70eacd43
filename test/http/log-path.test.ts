import { describe, expect, test } from "bun:test";
import { loggablePath } from "../../src/http/log-path.ts";

describe("loggablePath", () => {
  test.each([
    ["http://h/rpc/eth/6f1c2a9e-8d4b-4c1e-9a7f-3b2d5e6f7a8b", "/rpc/eth/***"],
    ["http://h/rpc/eth/any-key-at-all?x=1", "/rpc/eth/***"],
    ["http://h/rpc/eth/key/more/segments", "/rpc/eth/***"],
    ["http://h/RPC/eth/key", "/RPC/eth/***"],
    ["http://h/rpc/eth", "/rpc/eth"],
    ["http://h/rpc", "/rpc"],
    ["http://h/v1/account/6F1C2A9E-8D4B-4C1E-9A7F-3B2D5E6F7A8B/x", "/v1/account/***/x"],
    ["http://h/v1/address-watch/events?api_key=secret", "/v1/address-watch/events"],
    ["http://h/nowhere", "/nowhere"],
  ])("%s is logged as %s", (url, path) => expect(loggablePath(new Request(url))).toBe(path));
});
