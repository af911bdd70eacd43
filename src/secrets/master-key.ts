import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { type Result, type StartupFailure, startupFailure } from "../lib/error-codes.ts";

export type MasterKeyResult = Result<{ key: Uint8Array; created: boolean }, StartupFailure>;

/** What a missing key file's refusal advises unless told otherwise. */
const CREATE_IT = "run `chainwatch migrate` first";

/** Decodes 64 hex characters or base64 of 32 bytes. */
function decodeKey(text: string): Uint8Array | null {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Uint8Array.from(Buffer.from(t, "hex"));
  const b = Buffer.from(t, "base64");
  return b.length === 32 ? Uint8Array.from(b) : null;
}

/**
 * The master key from $CHAINWATCH_MASTER_KEY, else from `file`; when neither exists and `create`
 * is set, writes a new random key to `file` with mode 0600 (first `migrate` or `serve`). A missing
 * file's refusal ends with `; <advice>` (how to create it, unless the caller gives its own: null
 * for none, when the caller says what to do itself).
 */
export function loadMasterKey(opts: { file: string; envValue: string | undefined; create: boolean; advice?: string | null }): MasterKeyResult {
  if (opts.envValue) {
    const key = decodeKey(opts.envValue);
    return key ? { ok: true, key, created: false } : startupFailure("CHAINWATCH_MASTER_KEY must be 64 hex characters or base64 of 32 bytes");
  }
  if (existsSync(opts.file)) {
    const key = decodeKey(readFileSync(opts.file, "utf8"));
    return key ? { ok: true, key, created: false } : startupFailure(`master key file ${opts.file} must hold 64 hex characters`);
  }
  if (!opts.create) {
    const advice = opts.advice === undefined ? CREATE_IT : opts.advice;
    return startupFailure(`master key file ${opts.file} does not exist${advice === null ? "" : `; ${advice}`}`);
  }
  const key = crypto.getRandomValues(new Uint8Array(32));
  mkdirSync(dirname(opts.file), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(opts.file, `${Buffer.from(key).toString("hex")}\n`, { mode: 0o600, flag: "wx" });
  } catch (e) {
    // Another process (the CLI beside a starting daemon) created it first: use theirs.
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return loadMasterKey({ ...opts, create: false });
    return startupFailure(`cannot write master key file ${opts.file}: ${(e as Error).message}`);
  }
  chmodSync(opts.file, 0o600);
  return { ok: true, key, created: true };
}
