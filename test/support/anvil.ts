import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export type Anvil = { url: string; port: number; stop(): Promise<void> };

/** The anvil binary shipped inside its npm platform package (no download at run time). */
export function anvilBinary(): string {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve(`${pkg}/package.json`)), "bin", process.platform === "win32" ? "anvil.exe" : "anvil");
}

/**
 * Starts a real anvil node on 127.0.0.1 on a port of its own choosing and resolves once it
 * listens. `stop()` kills that process (by its own pid) and waits for it to exit.
 */
export async function startAnvil(args: string[] = []): Promise<Anvil> {
  const proc = Bun.spawn([anvilBinary(), "--host", "127.0.0.1", "--port", "0", ...args], { stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) {
      const err = await new Response(proc.stderr).text();
      throw new Error(`anvil exited before listening: ${err || seen}`);
    }
    seen += decoder.decode(value, { stream: true });
    const m = seen.match(/Listening on 127\.0\.0\.1:(\d+)/);
    if (m) {
      const port = Number(m[1]);
      // Keep draining stdout so anvil never blocks on a full pipe.
      void (async () => {
        while (!(await reader.read()).done);
      })().catch(() => {});
      return {
        url: `http://127.0.0.1:${port}`,
        port,
        async stop() {
          proc.kill();
          await proc.exited;
        },
      };
    }
  }
}
