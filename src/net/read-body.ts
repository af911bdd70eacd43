/**
 * A request's body as text, or null past `limit` bytes: refused on its Content-Length before
 * reading, then measured as read (Bun's own cap, set above every route limit, bounds a body sent
 * without a length). Every edge that reads a body reads it through here.
 */
export async function readLimitedText(request: Request, limit: number): Promise<string | null> {
  const declared = request.headers.get("content-length");
  if (declared !== null) {
    const length = Number(declared);
    if (length > limit) return null;
    // HTTP framing makes a declared length the body's exact size: read it straight as text (the
    // hot path of /rpc), without copying the bytes and measuring them again.
    if (Number.isSafeInteger(length) && length >= 0) return request.text();
  }
  const bytes = new Uint8Array(await request.arrayBuffer());
  return bytes.length > limit ? null : UTF8.decode(bytes);
}

const UTF8 = new TextDecoder();
