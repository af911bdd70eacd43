/**
 * A request's body as text, or null past `limit` bytes: refused on its Content-Length before
 * reading, else counted chunk by chunk as it arrives and given up (the rest never buffered) the
 * moment it passes the limit. Every edge that reads a body reads it through here.
 */
export async function readLimitedText(request: Request, limit: number): Promise<string | null> {
  const declared = declaredLength(request);
  if (declared !== null) {
    if (declared > limit) return null;
    // HTTP framing makes a declared length the body's exact size: read it straight as text (the
    // hot path of /rpc), without copying the bytes and measuring them again.
    return request.text();
  }
  if (request.body === null) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return UTF8.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
}

/**
 * Whether the request declares (Content-Length) a body of more than `limit` bytes: known before
 * a byte of it is read, so a refusal can come first of all.
 */
export function declaresMoreThan(request: Request, limit: number): boolean {
  const declared = declaredLength(request);
  return declared !== null && declared > limit;
}

/** The Content-Length as a number when it is one (an unparsable one counts as absent: the body is then counted as read). */
function declaredLength(request: Request): number | null {
  const header = request.headers.get("content-length");
  if (header === null) return null;
  const length = Number(header);
  if (length > Number.MAX_SAFE_INTEGER) return length;
  return Number.isSafeInteger(length) && length >= 0 ? length : null;
}

const UTF8 = new TextDecoder();
