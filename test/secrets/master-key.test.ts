import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../../src/config/load.ts";
import { openContext } from "../../src/daemon.ts";
import { loadMasterKey } from "../../src/secrets/master-key.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "chainwatch-master-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const HEX_KEY = "0f".repeat(32);

describe("the master key", () => {
  test("the first open creates master_key_file (and its folder) with mode 0600", async () => {
    const file = join(dir, "nested", "master.key");
    const cfg = parseConfig({ database: { url: `sqlite://${dir}/db.sqlite` }, secrets: { master_key_file: file } }, "test");
    if (!cfg.ok) throw new Error(cfg.error);
    const ctx = await openContext(cfg.config, { env: {} });
    await ctx.db.destroy();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toMatch(/^[0-9a-f]{64}\n$/);
  });

  test("is created 0600 even under a permissive umask", () => {
    const file = join(dir, "master.key");
    const old = process.umask(0o000);
    try {
      const result = loadMasterKey({ file, envValue: undefined, create: true });
      expect(result.ok && result.created).toBe(true);
    } finally {
      process.umask(old);
    }
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  test("an existing key file is read back, not replaced", () => {
    const file = join(dir, "master.key");
    writeFileSync(file, `${HEX_KEY}\n`, { mode: 0o600 });
    const result = loadMasterKey({ file, envValue: undefined, create: true });
    expect(result).toEqual({ ok: true, key: Uint8Array.from(Buffer.from(HEX_KEY, "hex")), created: false });
    expect(readFileSync(file, "utf8")).toBe(`${HEX_KEY}\n`);
  });

  test("CHAINWATCH_MASTER_KEY wins over the file, in hex or base64", () => {
    const file = join(dir, "master.key");
    writeFileSync(file, `${"aa".repeat(32)}\n`);
    const bytes = Uint8Array.from(Buffer.from(HEX_KEY, "hex"));
    expect(loadMasterKey({ file, envValue: HEX_KEY, create: true })).toEqual({ ok: true, key: bytes, created: false });
    expect(loadMasterKey({ file, envValue: Buffer.from(bytes).toString("base64"), create: true })).toEqual({
      ok: true,
      key: bytes,
      created: false,
    });
  });

  test("a malformed CHAINWATCH_MASTER_KEY is refused, never silently replaced", () => {
    expect(loadMasterKey({ file: join(dir, "master.key"), envValue: "short", create: true })).toEqual({
      ok: false,
      code: "STARTUP",
      error: "CHAINWATCH_MASTER_KEY must be 64 hex characters or base64 of 32 bytes",
    });
  });

  test("a key file with the wrong content is refused naming the file", () => {
    const file = join(dir, "master.key");
    writeFileSync(file, "not a key\n");
    expect(loadMasterKey({ file, envValue: undefined, create: true })).toEqual({
      ok: false,
      code: "STARTUP",
      error: `master key file ${file} must hold 64 hex characters`,
    });
  });

  test("without create, a missing key file is an error that says how to create it", () => {
    const file = join(dir, "master.key");
    expect(loadMasterKey({ file, envValue: undefined, create: false })).toEqual({
      ok: false,
      code: "STARTUP",
      error: `master key file ${file} does not exist; run \`chainwatch migrate\` first`,
    });
  });

  test("a start-up with a bad key stops with the reason", async () => {
    const cfg = parseConfig({ database: { url: `sqlite://${dir}/db.sqlite` }, secrets: { master_key_file: join(dir, "k") } }, "test");
    if (!cfg.ok) throw new Error(cfg.error);
    await expect(openContext(cfg.config, { env: { CHAINWATCH_MASTER_KEY: "nope" } })).rejects.toThrow(
      "CHAINWATCH_MASTER_KEY must be 64 hex characters or base64 of 32 bytes",
    );
  });
});
