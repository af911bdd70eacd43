// The floor for hostile-body benchmarks: a bare Bun.serve that reads every request's body as text
// (what checking a signature over it takes), hashes it with SHA-256, and answers 401, with no
// routing, parsing or database. `bun bench/support/bare-body-reader.ts <port>`; prints one line
// `{"port":N}` when listening.
import { createHash } from "node:crypto";

const ANSWER = JSON.stringify({ error: "Invalid signature" });

if (import.meta.main) {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: Number(process.argv[2] ?? 0),
    maxRequestBodySize: 2 * 1_048_576,
    async fetch(request) {
      createHash("sha256").update(await request.text()).digest("hex");
      return new Response(ANSWER, { status: 401, headers: { "content-type": "application/json;charset=utf-8" } });
    },
  });
  process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
  process.on("SIGTERM", () => {
    server.stop(true);
    process.exit(0);
  });
}
