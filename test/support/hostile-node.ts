import type { Server } from "bun";

/**
 * A JSON-RPC "node" on 127.0.0.1 whose answers are as large as a test asks, to try the
 * upstream size limit. The path says how: `/<bytes>/<mode>` answers every call (or batch) with a
 * body of exactly `<bytes>` bytes, a result padded with `ab…`; `mode` is `length` (with
 * Content-Length), `chunked` (streamed in 64 KiB chunks, no length) or `gzip` (the body padded
 * with spaces and gzip-compressed, so it is small on the wire and large once inflated).
 * `bytesSent` counts what the chunked mode handed to the socket.
 */
export type HostileNode = { url: string; server: Server<undefined>; bytesSent: () => number; stop(): void };

export function startHostileNode(): HostileNode {
  let sent = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const [, size, mode] = new URL(req.url).pathname.split("/");
      const request = (await req.json()) as { id?: unknown } | { id?: unknown }[];
      const text = paddedAnswer(request, Number(size), mode === "gzip" ? " " : "ab");
      if (mode === "gzip") return new Response(Bun.gzipSync(text), { headers: { "Content-Type": "application/json", "Content-Encoding": "gzip" } });
      if (mode === "chunked") {
        const body = new TextEncoder().encode(text);
        let offset = 0;
        const stream = new ReadableStream({
          pull(controller) {
            if (offset >= body.length) return controller.close();
            const chunk = body.subarray(offset, offset + 65_536);
            offset += chunk.length;
            sent += chunk.length;
            controller.enqueue(chunk);
          },
        });
        return new Response(stream, { headers: { "Content-Type": "application/json" } });
      }
      return new Response(text, { headers: { "Content-Type": "application/json" } });
    },
  });
  return { url: server.url.href.replace(/\/$/, ""), server, bytesSent: () => sent, stop: () => server.stop(true) };
}

/** A JSON-RPC answer to `request` of exactly `size` bytes: the first call's result is padded with `fill`. */
function paddedAnswer(request: { id?: unknown } | { id?: unknown }[], size: number, fill: string): string {
  const calls = Array.isArray(request) ? request : [request];
  const answers = calls.map((c) => JSON.stringify({ jsonrpc: "2.0", id: c.id ?? null, result: "0x" }));
  const bare = Array.isArray(request) ? `[${answers.join(",")}]` : answers[0];
  const missing = size - bare.length;
  if (missing < 0) throw new Error(`an answer cannot be smaller than ${bare.length} bytes`);
  // Spaces go after the JSON (still valid); anything else inside the first result string.
  return fill === " " ? bare + " ".repeat(missing) : bare.replace('"result":"0x"', `"result":"0x${"ab".repeat(missing / 2)}${missing % 2 ? "a" : ""}"`);
}
