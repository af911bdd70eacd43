import type * as NodeCrypto from "node:crypto";
import { randomBytes } from "../lib/random.ts";

// node:crypto is loaded at the first seal or open: its ciphers come with Node's stream classes,
// about 15 ms of CPU in a fresh process, and most commands never seal or open a secret.
let loaded: typeof NodeCrypto | undefined;
const nodeCrypto = () => (loaded ??= require("node:crypto") as typeof NodeCrypto);

/** Seals short secrets (API secrets, webhook secrets) with AES-256-GCM under the master key. */
export type SecretBox = { seal(plain: string): string; open(sealed: string): string };

const VERSION = "v1";

/** A box over a 32-byte key. Sealed form: `v1.<iv b64url>.<ciphertext+tag b64url>`. */
export function createSecretBox(key: Uint8Array): SecretBox {
  if (key.length !== 32) throw new Error("master key must be 32 bytes");
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = nodeCrypto().createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final(), cipher.getAuthTag()]);
      return `${VERSION}.${iv.toString("base64url")}.${body.toString("base64url")}`;
    },
    open(sealed) {
      const [version, ivText, bodyText] = sealed.split(".");
      if (version !== VERSION || !ivText || !bodyText) throw new Error("unrecognized sealed secret");
      const body = Buffer.from(bodyText, "base64url");
      const decipher = nodeCrypto().createDecipheriv("aes-256-gcm", key, Buffer.from(ivText, "base64url"));
      decipher.setAuthTag(body.subarray(body.length - 16));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString("utf8");
    },
  };
}
