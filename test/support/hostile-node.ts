import type { Server } from "bun";

/**
 * A node on 127.0.0.1 answering as badly as a test asks, to try what chainwatch does with an
 * upstream's answers. The URL's path says how: the first segment naming a mode, and the segment
 * before it as its number (what follows, such as a tron call's `/wallet/getblock`, is ignored):
 * - `/<bytes>/length`, `/<bytes>/chunked`, `/<bytes>/gzip`: every call (or batch) answered with a
 *   body of exactly `<bytes>` bytes, a result padded with `ab…`, sent with a Content-Length,
 *   streamed in 64 KiB chunks without one, or padded with spaces and gzip-compressed (small on
 *   the wire, large once inflated);
 * - `/<levels>/deep`: each call's result is `<levels>` arrays inside one another (`[[[…]]]`);
 * - `/…/echo`: each call answered with an error quoting what the node was sent (the URL, the
 *   Authorization and TRON-PRO-API-KEY headers, the credentials decoded), both as a JSON-RPC
 *   `error` and as java-tron's `Error`, so every family reads it as the node's error;
 *   `/…/echo-one` answers a batch too with one such error object (a node refusing batches);
 *   `/…/echo-chain` answers each call with the result `{"chain": <the password it was sent>}`,
 *   Bitcoin Core's getblockchaininfo naming a chain after it.
 * `bytesSent` counts what the chunked mode handed to the socket.
 */
export type HostileNode = { url: string; server: Server<undefined>; bytesSent: () => number; stop(): void };

const MODES = new Set(["length", "chunked", "gzip", "deep", "echo", "echo-one", "echo-chain"]);

type Call = { id?: unknown };

export function startHostileNode(): HostileNode {
  let sent = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const segments = new URL(req.url).pathname.split("/");
      const at = segments.findIndex((s) => MODES.has(s));
      const mode = segments[at];
      const n = Number(segments[at - 1]);
      const request = (await req.json()) as Call | Call[];
      if (mode === "deep") return json(answerEach(request, (c) => `{"jsonrpc":"2.0","id":${JSON.stringify(c.id ?? null)},"result":${"[".repeat(n)}${"]".repeat(n)}}`));
      if (mode === "echo") return json(answerEach(request, (c) => JSON.stringify(echoed(req, c))));
      if (mode === "echo-one") return Response.json(echoed(req, Array.isArray(request) ? {} : request));
      if (mode === "echo-chain") {
        const chain = credentialsOf(req).split(":")[1] ?? "";
        return json(answerEach(request, (c) => JSON.stringify({ result: { chain }, error: null, id: c.id ?? null })));
      }
      const text = paddedAnswer(request, n, mode === "gzip" ? " " : "ab");
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
      return json(text);
    },
  });
  return { url: server.url.href.replace(/\/$/, ""), server, bytesSent: () => sent, stop: () => server.stop(true) };
}

function json(text: string): Response {
  return new Response(text, { headers: { "Content-Type": "application/json" } });
}

/** One answer per call, an array for a batch. */
function answerEach(request: Call | Call[], answer: (call: Call) => string): string {
  return Array.isArray(request) ? `[${request.map(answer).join(",")}]` : answer(request);
}

/** An error answer that gives back everything secret the request carried. */
function echoed(req: Request, call: Call) {
  const authorization = req.headers.get("authorization") ?? "";
  const credentials = credentialsOf(req);
  const message = `refused ${req.url}: key ${req.headers.get("tron-pro-api-key")}, authorization ${authorization} (${credentials})`;
  return { jsonrpc: "2.0", id: call.id ?? null, error: { code: -32000, message, data: { credentials } }, Error: message };
}

/** The `user:password` of the request's basic authorization; "" without one. */
function credentialsOf(req: Request): string {
  const authorization = req.headers.get("authorization") ?? "";
  return authorization.startsWith("Basic ") ? Buffer.from(authorization.slice(6), "base64").toString() : "";
}

/** A JSON-RPC answer to `request` of exactly `size` bytes: the first call's result is padded with `fill`. */
function paddedAnswer(request: Call | Call[], size: number, fill: string): string {
  const calls = Array.isArray(request) ? request : [request];
  const answers = calls.map((c) => JSON.stringify({ jsonrpc: "2.0", id: c.id ?? null, result: "0x" }));
  const bare = Array.isArray(request) ? `[${answers.join(",")}]` : answers[0];
  const missing = size - bare.length;
  if (missing < 0) throw new Error(`an answer cannot be smaller than ${bare.length} bytes`);
  // Spaces go after the JSON (still valid); anything else inside the first result string.
  return fill === " " ? bare + " ".repeat(missing) : bare.replace('"result":"0x"', `"result":"0x${"ab".repeat(missing / 2)}${missing % 2 ? "a" : ""}"`);
}
