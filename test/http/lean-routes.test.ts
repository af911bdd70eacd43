import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { composedRoutes } from "../support/composed-routes.ts";
import { seedTestDatabase, testConfig } from "../support/harness.ts";
import { onPostgres, sameOnEveryDatabase } from "../support/postgres-only.ts";

// Elysia composes each route's handler from the source text of its hooks and handler, reading of
// the request only what they name. A handler that hands its whole context to another function
// (the cabinet's signed-in pages once did) is composed for the worst case: every request then
// reads every header into an object and parses the cookies and the query before the handler runs.
// No route of the daemon needs that: they read single headers from the request, and the cabinet
// reads its session cookie itself.

let dir: string;

beforeAll(async () => {
  if (onPostgres) return;
  dir = mkdtempSync(join(tmpdir(), "chainwatch-lean-routes-"));
  await seedTestDatabase(dir, testConfig(dir));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(onPostgres)(sameOnEveryDatabase("the daemon's composed routes"), () => {
  test("no route reads every header into an object or parses the cookies on each request", async () => {
    const routes = await composedRoutes(dir);
    // The cabinet's pages are among them (the probe turns the cabinet on).
    expect(Object.keys(routes)).toContain("GET /cabinet/keys");
    const heavy = Object.entries(routes)
      .filter(([, handler]) => handler.includes("headers.toJSON()") || handler.includes("parseCookie("))
      .map(([route]) => route);
    expect(heavy).toEqual([]);
  });
});
