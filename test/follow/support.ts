import type { Subprocess } from "bun";
import { CLI, cleanEnv } from "../delivery/fixtures.ts";

/** A `chainwatch serve` subprocess whose JSON log lines are kept for assertions. */
export type ServeProcess = { proc: Subprocess<"ignore", "pipe", "pipe">; url: string; lines: Record<string, unknown>[] };

/** Starts `serve` and resolves once it listens; keeps reading (and parsing) its log until it exits. */
export async function spawnLoggedServe(configPath: string): Promise<ServeProcess> {
  const proc = Bun.spawn([process.execPath, CLI, "serve", "--config", configPath], { env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const lines: Record<string, unknown>[] = [];
  let listening: (url: string) => void = () => {};
  const url = new Promise<string>((resolve) => (listening = resolve));
  (async () => {
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of proc.stdout) {
      buffered += decoder.decode(chunk);
      const parts = buffered.split("\n");
      buffered = parts.pop() ?? "";
      for (const part of parts) {
        if (!part.trim()) continue;
        const line = JSON.parse(part) as Record<string, unknown>;
        lines.push(line);
        if (line.msg === "listening") listening(String(line.url).replace(/\/$/, ""));
      }
    }
  })();
  const started = await Promise.race([url, proc.exited.then(async () => Promise.reject(new Error(`serve exited: ${await new Response(proc.stderr).text()}`)))]);
  return { proc, url: started, lines };
}
