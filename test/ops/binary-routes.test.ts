import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { composedRoutes } from "../support/composed-routes.ts";
import { seedTestDatabase, testConfig } from "../support/harness.ts";
import { onPostgres, sameOnEveryDatabase } from "../support/postgres-only.ts";

// The single binary must answer as the source does, at the source's cost. Elysia composes each
// route's handler from the source text of its hooks and handler (what of the request they read);
// a build that renames identifiers (`--minify`) hides that, and 54 of the binary's 79 routes then
// read every header into an object, parsed the cookies and the query, and defined `server` on
// each request: GET /v1/account cost the binary 77–82 µs of CPU a request against 58–68 unminified
// (docs/benchmarks.md). Here the daemon's routes are composed in a bundle built with
// `bun run build`'s own flags and compared with the same composed from source.

const ROOT = join(import.meta.dir, "../..");
let work: string;

/**
 * `bun run build`'s flags that shape the code: all but --compile, --outfile and its value, and
 * --bytecode. Bytecode keeps every function's source text (a bundle built with --bytecode alone
 * composes all the routes as the source does), and compiling to it is two thirds of this test's CPU.
 */
function buildFlags(): string[] {
  const script = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: { build: string } }).scripts.build;
  const words = script.split(/\s+/);
  expect(words.slice(0, 3)).toEqual(["bun", "build", "cli/index.ts"]);
  const flags: string[] = [];
  for (let i = 3; i < words.length; i++) {
    if (words[i] === "--outfile") i++;
    else if (words[i] !== "--compile" && words[i] !== "--bytecode") flags.push(words[i]);
  }
  return flags;
}

let data: string;

beforeAll(async () => {
  if (onPostgres) return;
  work = mkdtempSync(join(tmpdir(), "chainwatch-binary-routes-"));
  // One database for both sides, the bundle's first: a copy of the migrated template.
  data = join(work, "data");
  mkdirSync(data);
  await seedTestDatabase(data, testConfig(data));
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.skipIf(onPostgres)(sameOnEveryDatabase("the binary's routes"), () => {
  test("built with bun run build's flags, every route's handler is composed exactly as from source", async () => {
    const flags = buildFlags();
    const entry = join(ROOT, "test/support/composed-routes.ts");
    const outdir = join(work, "bundle");
    const built = Bun.spawnSync([process.execPath, "build", entry, "--target", "bun", ...flags, "--outdir", outdir], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    expect({ exit: built.exitCode, stderr: built.stderr.toString() }).toEqual({ exit: 0, stderr: "" });
    const ran = Bun.spawnSync([process.execPath, join(outdir, "composed-routes.js"), data], { cwd: work, stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "", TMPDIR: tmpdir() } });
    expect({ exit: ran.exitCode, stderr: ran.stderr.toString() }).toEqual({ exit: 0, stderr: "" });
    const bundled = JSON.parse(ran.stdout.toString()) as Record<string, string>;
    const source = await composedRoutes(data);
    expect(Object.keys(source)).toContain("GET /v1/account");
    expect(Object.keys(bundled).sort()).toEqual(Object.keys(source).sort());
    // Route by route, so a failure names the route and shows what the bundle's handler does more.
    for (const route of Object.keys(source)) expect({ route, handler: bundled[route] }).toEqual({ route, handler: source[route] });
  }, 60_000);
});
