import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { cleanEnv } from "../support/cli.ts";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { onPostgres, sameOnEveryDatabase } from "../support/postgres-only.ts";

// The SDK as an application installs it: `bun run build:client`, `npm pack` of packages/client,
// the tarball added to a project outside the checkout, imported there by Bun and checked by tsc.
// The tarball must hold the client alone: nothing of the checkout (its data folder holds the
// master key and the live database), and no declaration pointing into src/. The PostgreSQL run skips
// it: the package is the same whatever the daemon stores in, and its one call to the daemon is
// one that the client's other tests make on every database.

const ROOT = join(import.meta.dir, "../..");
const PACKAGE = join(ROOT, "packages/client");
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");
const SLOW = 180_000;

type Packed = { name: string; version: string; filename: string; files: { path: string }[] };

let work: string;
let app: string;
let packed: Packed;
let td: TestDaemon;
let shop: TestClient;

// The two TypeScript compilers run here (build:client and tsc) are short runs of a large program:
// JavaScriptCore's top JIT tier (FTL) spends more CPU compiling TypeScript's checker than its code
// then saves. Without it they take about 40 % less CPU and no more time.
const COMPILER_ENV = { BUN_JSC_useFTLJIT: "0" };

function run(cmd: string[], cwd: string, env: Record<string, string> = {}): { stdout: string; stderr: string } {
  const r = Bun.spawnSync(cmd, { cwd, env: cleanEnv(env), stdout: "pipe", stderr: "pipe" });
  const out = { stdout: r.stdout.toString(), stderr: r.stderr.toString() };
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")} exited ${r.exitCode}: ${out.stderr}${out.stdout}`);
  return out;
}

/** Every file under `dir`, as paths from it, sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

beforeAll(async () => {
  if (onPostgres) return;
  work = mkdtempSync(join(tmpdir(), "chainwatch-sdk-package-"));
  td = await startTestDaemon();
  shop = await td.client({ name: "sdk-package", slots: 2, credits: 70 });
  run([process.execPath, "run", "build:client"], ROOT, COMPILER_ENV);
  [packed] = JSON.parse(run(["npm", "pack", "--json", "--pack-destination", work], PACKAGE).stdout) as Packed[];
  app = join(work, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "shop-app", private: true, type: "module" }));
  run([process.execPath, "add", join(work, packed.filename)], app);
}, SLOW);

afterAll(async () => {
  await td?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.skipIf(onPostgres)(sameOnEveryDatabase("the client package"), () => {
  test("npm pack holds package.json, README.md and the built client, nothing else", () => {
    const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect({ name: packed.name, version: packed.version }).toEqual({ name: "chainwatch", version: root.version });
    expect(packed.files.map((f) => f.path).sort()).toEqual(["README.md", "dist/client.d.ts", "dist/client.js", "package.json"]);
  });

  test("installed into a project, it is those four files", () => {
    expect(filesUnder(join(app, "node_modules/chainwatch")).filter((f) => f !== ".bun-tag")).toEqual(["README.md", "dist/client.d.ts", "dist/client.js", "package.json"]);
  });

  test("neither the JavaScript nor the declarations import anything", () => {
    const dir = join(app, "node_modules/chainwatch/dist");
    const js = readFileSync(join(dir, "client.js"), "utf8");
    const dts = readFileSync(join(dir, "client.d.ts"), "utf8");
    expect(js).not.toMatch(/^\s*import\s|\bimport\(|\brequire\(/m);
    expect(dts).not.toMatch(/^\s*import\s|\bimport\(|\/\/\/ <reference|\bsrc\//m);
  });

  test("a project imports chainwatch/client with Bun and calls a real daemon", async () => {
    writeFileSync(
      join(app, "account.ts"),
      `import { createClient } from "chainwatch/client";
const client = createClient({ baseUrl: process.env.BASE_URL!, apiKey: process.env.API_KEY!, secret: process.env.SECRET! });
console.log(JSON.stringify(await client.getAccount()));
`,
    );
    // Spawned, not spawnSync: the daemon runs in this process and must answer meanwhile.
    const proc = Bun.spawn([process.execPath, "account.ts"], {
      cwd: app,
      env: cleanEnv({ BASE_URL: td.url, API_KEY: shop.apiKey, SECRET: shop.secret }),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(stderr).toBe("");
    expect(JSON.parse(stdout)).toEqual({
      account_id: shop.accountId,
      name: "sdk-package",
      environment: "production",
      plan: { name: "plan-sdk-package", address_slots: 2, rpc_rps: 25, monthly_credits: 0 },
      credits: { balance: 70, spent_today: 0 },
      address_slots: { used: 0, limit: 2 },
    });
  });

  test("its declarations type a project's code on their own: tsc, strict, with no other types", () => {
    // skipDefaultLibCheck: TypeScript's own lib files (lib.dom.d.ts is most of the program) are not
    // checked again, which was two thirds of tsc's CPU here; the package's client.d.ts and typed.ts
    // still are, in full.
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "ES2022", module: "Preserve", moduleResolution: "bundler", lib: ["ES2022", "DOM"], types: [], strict: true, noEmit: true, skipDefaultLibCheck: true },
        files: ["typed.ts"],
      }),
    );
    writeFileSync(
      join(app, "typed.ts"),
      `import { type Account, ChainwatchError, createClient, type PaymentStatus, verifyWebhook, type WebhookEvent } from "chainwatch/client";

const client = createClient({ baseUrl: "http://127.0.0.1:8787", apiKey: "3f1c2b4a-0000-4000-8000-000000000000", secret: "${"f".repeat(64)}" });
export async function main(body: string, headers: Headers): Promise<string[]> {
  const account: Account = await client.getAccount();
  const out = [account.plan.name, String(account.credits.balance)];
  for await (const event of client.events({ network: "eth" })) out.push(event.type === "block" ? String(event.block_height) : event.amount);
  const status: PaymentStatus = (await client.getPayment("pay_1")).status;
  const hook: WebhookEvent = await verifyWebhook(headers, body, "whsec_a2V5");
  // @ts-expect-error: network_slug is required
  await client.addWatch({ address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed" });
  // @ts-expect-error: the SDK's byte helpers are not part of the package
  await import("chainwatch/client").then((m) => m.toHex);
  return [...out, status, hook.type, String(new ChainwatchError({ status: 400, error: "x", method: "GET", path: "/" }).status)];
}
`,
    );
    run([process.execPath, TSC, "-p", app], app, COMPILER_ENV);
  }, SLOW);
});
