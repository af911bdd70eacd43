// The baseline for HTTP benchmarks: a bare Bun.serve answering every request with the same JSON
// body of a given size, with no routing, auth or database.
// `bun bench/support/bare-server.ts <port> <body bytes>`; prints one line `{"port":N}` when listening.

/** A JSON object whose serialization is exactly `bytes` long (at least 10). */
export function jsonOfSize(bytes: number): string {
  const shell = '{"pad":""}';
  if (bytes < shell.length) throw new Error(`a JSON body needs at least ${shell.length} bytes`);
  return `{"pad":"${"x".repeat(bytes - shell.length)}"}`;
}

if (import.meta.main) {
  const port = Number(process.argv[2] ?? 0);
  const body = jsonOfSize(Number(process.argv[3] ?? 256));
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port,
    fetch: () => new Response(body, { headers: { "content-type": "application/json;charset=utf-8" } }),
  });
  process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
  process.on("SIGTERM", () => {
    server.stop(true);
    process.exit(0);
  });
}
