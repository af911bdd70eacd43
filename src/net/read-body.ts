/**
 * A request's body as text, or null past `limit` bytes: refused on its Content-Length before
 * reading, then measured as read (Bun's own cap, set above every route limit, bounds a body sent
 * without a length). Every edge that reads a body reads it through here.
 */
export async function readLimitedText(request: Request, limit: number): Promise<string | null> {
  if (Number(request.headers.get("content-length") ?? "0") > limit) return null;
  const bytes = new Uint8Array(await request.arrayBuffer());
  return bytes.length > limit ? null : new TextDecoder().decode(bytes);
}
