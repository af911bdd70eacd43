/**
 * `n` bytes from the platform's secure random source (Web Crypto's `getRandomValues`, the source
 * node:crypto's `randomBytes` reads too), as a Buffer for its encodings. Not node:crypto itself:
 * loading it brings Node's stream classes, about 15 ms of CPU in each fresh CLI process.
 */
export function randomBytes(n: number): Buffer {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(n)));
}
