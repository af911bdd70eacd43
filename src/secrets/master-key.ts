import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { type Result, type StartupFailure, startupFailure } from "../lib/error-codes.ts";

export type MasterKeyResult = Result<{ key: Uint8Array; created: boolean }, StartupFailure>;

/** The master key found, or null when there is none: no CHAINWATCH_MASTER_KEY and no key file. */
export type FoundMasterKey = Result<{ key: Uint8Array | null }, StartupFailure>;

/** What a missing key file's refusal advises unless told otherwise. */
const CREATE_IT = "run `chainwatch migrate` first";

/** Decodes 64 hex characters or base64 of 32 bytes. */
function decodeKey(text: string): Uint8Array | null {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Uint8Array.from(Buffer.from(t, "hex"));
  const b = Buffer.from(t, "base64");
  return b.length === 32 ? Uint8Array.from(b) : null;
}

/** The master key from $CHAINWATCH_MASTER_KEY, else from `file`; null when neither exists. Writes nothing. */
export function readMasterKey(opts: { file: string; envValue: string | undefined }): FoundMasterKey {
  if (opts.envValue) {
    const key = decodeKey(opts.envValue);
    return key ? { ok: true, key } : startupFailure("CHAINWATCH_MASTER_KEY must be 64 hex characters or base64 of 32 bytes");
  }
  if (!existsSync(opts.file)) return { ok: true, key: null };
  const key = decodeKey(readFileSync(opts.file, "utf8"));
  return key ? { ok: true, key } : startupFailure(`master key file ${opts.file} must hold 64 hex characters`);
}

/**
 * Writes a new random key to `file` with mode 0600 (and its folder, 0700). Only for a database
 * that holds no sealed secret yet: a new key opens none of them. Should another process (the CLI
 * beside a starting daemon) write the file first, its key is used instead.
 */
export function createMasterKey(file: string): MasterKeyResult {
  const key = crypto.getRandomValues(new Uint8Array(32));
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, `${Buffer.from(key).toString("hex")}\n`, { mode: 0o600, flag: "wx" });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return loadMasterKey({ file, envValue: undefined, create: false });
    return startupFailure(`cannot write master key file ${file}: ${(e as Error).message}`);
  }
  chmodSync(file, 0o600);
  return { ok: true, key, created: true };
}

/**
 * The master key from $CHAINWATCH_MASTER_KEY, else from `file`; when neither exists and `create`
 * is set, writes a new one (createMasterKey). Opening a database goes through `openContext`
 * instead, which creates a key only for a database without sealed secrets. A missing file's
 * refusal ends with `; <advice>` (how to create it, unless the caller gives its own: null for
 * none, when the caller says what to do itself).
 */
export function loadMasterKey(opts: { file: string; envValue: string | undefined; create: boolean; advice?: string | null }): MasterKeyResult {
  const found = readMasterKey(opts);
  if (!found.ok) return found;
  if (found.key !== null) return { ok: true, key: found.key, created: false };
  if (opts.create) return createMasterKey(opts.file);
  const advice = opts.advice === undefined ? CREATE_IT : opts.advice;
  return startupFailure(`master key file ${opts.file} does not exist${advice === null ? "" : `; ${advice}`}`);
}
