// HTTP spoken over a raw TCP socket, for requests no client library sends: a target that is no
// URL, a body cut short.

export type RawAnswer = { status: number; headers: Record<string, string>; body: string; bytes: number };

/**
 * Writes `request` (a request line, headers and whatever part of a body) to the server at
 * `baseUrl` exactly as given and reads the one answer: complete once its headers and
 * Content-Length bytes of body are in, whether or not the server keeps the connection open. The
 * socket stays open until then, so a server that waits for the rest of a body never answers.
 */
export async function rawExchange(baseUrl: string, request: string | Uint8Array): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  let text = "";
  await new Promise<void>((resolve, reject) => {
    const complete = () => {
      const end = text.indexOf("\r\n\r\n");
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
      return end !== -1 && length !== null && Buffer.byteLength(text.slice(end + 4)) >= Number(length[1]);
    };
    Bun.connect({
      hostname,
      port: Number(port),
      socket: {
        open: (s) => void s.write(request),
        data(s, chunk) {
          text += chunk.toString();
          if (complete()) {
            s.end();
            resolve();
          }
        },
        close: () => (complete() ? resolve() : reject(new Error(`connection closed mid-answer: ${JSON.stringify(text)}`))),
        error: (_s, e) => reject(e),
      },
    }).catch(reject);
  });
  const end = text.indexOf("\r\n\r\n");
  const [statusLine, ...headerLines] = text.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const h of headerLines) {
    const colon = h.indexOf(":");
    headers[h.slice(0, colon).toLowerCase()] = h.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(" ")[1]), headers, body: text.slice(end + 4), bytes: Buffer.byteLength(text) };
}
