import { afterAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signedHeaders } from "../support/harness.ts";

// The SDK is copied into other people's programs (Node, Deno, browsers' bundlers): at run time it
// may use fetch and Web Crypto only. Type imports from the daemon's schemas are fine: they vanish.

const CLIENT_DIR = "src/client";
const files = [...new Bun.Glob("*.ts").scanSync(CLIENT_DIR)].sort();
const dir = mkdtempSync(join(tmpdir(), "chainwatch-sdk-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function bundle(): Promise<string> {
  const built = await Bun.build({ entrypoints: [`${CLIENT_DIR}/index.ts`], target: "node", format: "esm" });
  expect(built.success).toBe(true);
  expect(built.outputs.length).toBe(1);
  return built.outputs[0].text();
}

describe("chainwatch/client depends on nothing at run time", () => {
  test("package.json exports ./client as src/client/index.ts", async () => {
    const pkg = await Bun.file("package.json").json();
    expect(pkg.exports).toEqual({ "./client": "./src/client/index.ts" });
  });

  test.each(files)("%s imports only its siblings at run time (type imports aside)", async (file) => {
    const imports = new Bun.Transpiler({ loader: "ts" }).scanImports(await Bun.file(`${CLIENT_DIR}/${file}`).text());
    for (const { path } of imports) expect(path).toMatch(/^\.\/[a-z-]+\.ts$/);
  });

  test("its bundle holds the src/client modules alone and imports nothing", async () => {
    const text = await bundle();
    // Bun marks each bundled module with a `// <path>` line.
    const modules = [...text.matchAll(/^\/\/ (\S+\.ts)$/gm)].map((m) => m[1]).sort();
    expect(modules.length).toBeGreaterThan(0);
    for (const m of modules) expect(m).toStartWith(`${CLIENT_DIR}/`);
    expect(text).not.toMatch(/^\s*import\s/m);
    expect(text).not.toMatch(/\brequire\(/);
    expect(text).not.toMatch(/\bBun\./);
    expect(text).not.toMatch(/\bBuffer\b/);
  });

  test.skipIf(!Bun.which("node"))("its bundle runs on Node: signs a request and verifies a webhook", async () => {
    writeFileSync(join(dir, "client.mjs"), await bundle());
    const secret = `whsec_${Buffer.from("k".repeat(24)).toString("base64")}`;
    const body = '{"id":"evt_1","type":"block"}';
    const ts = Math.floor(Date.now() / 1000);
    const xSignature = createHmac("sha256", Buffer.from("k".repeat(24))).update(`${ts}.${body}`).digest("hex");
    writeFileSync(
      join(dir, "main.mjs"),
      `import { signRequest, verifyWebhook, createClient } from "./client.mjs";
const headers = await signRequest({ apiKey: "key", secret: "s3cret", method: "POST", path: "/v1/payments", body: "{}", timestamp: 1795000000 });
const event = await verifyWebhook({ "x-timestamp": "${ts}", "x-signature": "${xSignature}" }, ${JSON.stringify(body)}, "${secret}");
console.log(JSON.stringify({ headers, event, client: typeof createClient({ baseUrl: "http://127.0.0.1:1", apiKey: "3f1c2b4a-0000-4000-8000-000000000000", secret: "${"f".repeat(64)}" }).getAccount }));
`,
    );
    const run = Bun.spawnSync(["node", join(dir, "main.mjs")], { stdout: "pipe", stderr: "pipe" });
    expect(run.stderr.toString()).toBe("");
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout.toString())).toEqual({
      headers: signedHeaders({ apiKey: "key", secret: "s3cret" }, "POST", "/v1/payments", "{}", 1_795_000_000),
      event: { id: "evt_1", type: "block" },
      client: "function",
    });
  });
});
