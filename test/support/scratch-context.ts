import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../../src/config/load.ts";
import { type Context, openContext } from "../../src/daemon.ts";
import type { Clock } from "../../src/lib/clock.ts";
import { testDatabaseUrl } from "./harness.ts";

/** The daemon's context over a database of its own, and how to close it. */
export type ScratchContext = { ctx: Context; close(): Promise<void> };

/**
 * The context `serve` would open (migrated database, sealed secrets) on a fresh database in a
 * scratch folder named after `name` (SQLite, or PostgreSQL when the suite runs there), on `clock`;
 * `close` destroys the connection and removes the folder.
 */
export async function openScratchContext(name: string, clock: Clock): Promise<ScratchContext> {
  const dir = mkdtempSync(join(tmpdir(), `chainwatch-${name}-`));
  const cfg = parseConfig({ database: { url: testDatabaseUrl(dir) }, secrets: { master_key_file: `${dir}/master.key` } }, "test");
  if (!cfg.ok) throw new Error(cfg.error);
  const ctx = await openContext(cfg.config, { clock, env: {} });
  return {
    ctx,
    async close() {
      await ctx.db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
