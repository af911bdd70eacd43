import { parseConfig } from "../../src/config/load.ts";
import { openContext } from "../../src/context.ts";
import { startDaemon } from "../../src/daemon.ts";
import { createServer } from "../../src/server.ts";

// The handler Elysia composes for each of the daemon's routes, by route ("GET /v1/account": its
// source). Elysia reads the source of each hook and handler to learn what of the request it uses
// (the headers, the cookies, the query, the body) and composes a handler that reads only that.
// Run as a script (`<bundle> <folder>`) it prints them as JSON: test/ops/binary-routes.test.ts
// bundles it with the binary's build flags and compares what it prints with the same taken from source.

/**
 * The composed handlers of a daemon started, then stopped, with the cabinet on, over the SQLite
 * database in `dir` (`chainwatch.db`: the test puts a copy of the migrated template there, so
 * neither side migrates).
 */
export async function composedRoutes(dir: string): Promise<Record<string, string>> {
  const parsed = parseConfig(
    {
      server: { host: "127.0.0.1", port: 0 },
      database: { url: `sqlite://${dir}/chainwatch.db` },
      secrets: { master_key_file: `${dir}/master.key` },
      cabinet: { enabled: true },
    },
    "composed routes",
  );
  if (!parsed.ok) throw new Error(parsed.error);
  const ctx = await openContext(parsed.config, { env: {} });
  const daemon = await startDaemon(ctx, { walCheckpointThread: false });
  try {
    const app = createServer(daemon.deps) as unknown as { routes: { method: string; path: string; compile(): unknown }[] };
    return Object.fromEntries(app.routes.map((r) => [`${r.method} ${r.path}`, String(r.compile())]));
  } finally {
    await daemon.stop();
  }
}

// No top-level await, so that it can be bundled to bytecode as the binary is (such a bundle is CommonJS).
if (import.meta.main) {
  void composedRoutes(String(process.argv[2])).then((routes) => {
    process.stdout.write(JSON.stringify(routes));
    process.exit(0);
  });
}
