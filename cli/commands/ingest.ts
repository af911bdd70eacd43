import { defineCommand } from "citty";
import { findNetwork, unknownNetwork } from "../../src/config/networks.ts";
import type { Context } from "../../src/context.ts";
import { parseBatch } from "../../src/ingest/batch-schema.ts";
import { networkTips } from "../../src/ingest/blocks.ts";
import { heightJumpError } from "../../src/ingest/height-jump.ts";
import { createIngestPipeline } from "../../src/ingest/pipeline.ts";
import { type InvalidInput, invalidInput, type Result } from "../../src/lib/error-codes.ts";
import { failureMessage } from "../../src/lib/failures.ts";
import { withContext } from "../context.ts";
import { CommandError, type Globals } from "../globals.ts";
import { emit } from "../output.ts";
import { type Progress, terminalProgress } from "../progress.ts";
import { globalArgs } from "./common.ts";

/**
 * Blocks stored per write transaction. A large file goes in slices, so a daemon serving beside
 * the CLI never waits long for SQLite's one writer lock, and a terminal can show progress.
 */
export const INGEST_SLICE = 1000;

/** The batch text from a file, or from stdin for `-`; a large file shows how much is read. */
async function readBatch(source: string, progress: Progress): Promise<string> {
  if (source === "-") return Bun.stdin.text();
  try {
    const file = Bun.file(source);
    const size = file.size;
    if (size < 8 * 1024 * 1024) return await file.text();
    const chunks: Uint8Array[] = [];
    let read = 0;
    for await (const chunk of file.stream()) {
      chunks.push(chunk);
      read += chunk.length;
      progress.update(`ingest: reading ${source}: ${mib(read)} of ${mib(size)} MiB`);
    }
    progress.done();
    return Buffer.concat(chunks).toString("utf8");
  } catch (e) {
    throw new CommandError(`cannot read ${source}: ${(e as Error).message}`);
  }
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

export function ingestCommand(g: Globals) {
  return defineCommand({
    meta: { name: "ingest", description: "Feed a block batch (one block or an array) through the same code as POST /ingest/blocks" },
    args: { ...globalArgs, file: { type: "positional", description: "Batch JSON file, or - for stdin", required: true } },
    run: async ({ args }) => {
      const source = String(args.file);
      const progress = terminalProgress(g.io.stderr);
      const text = await readBatch(source, progress);
      let batch: unknown;
      if (text.length >= 8 * 1024 * 1024) progress.step(`ingest: parsing ${mib(text.length)} MiB of JSON`);
      try {
        batch = JSON.parse(text);
      } catch (e) {
        throw new CommandError(`${source === "-" ? "stdin" : source} is not valid JSON: ${(e as Error).message}`);
      }
      await withContext(g, async (ctx) => {
        // A running daemon's delivery loop picks the queued webhooks up on its next tick.
        const service = createIngestPipeline(ctx);
        const slices = await sliceBatch(ctx, batch);
        if (!slices.ok) throw new CommandError(slices.error);
        const total = Array.isArray(batch) ? batch.length : 1;
        let done = 0;
        const doc = { blocks: 0, events: 0 };
        for (const slice of slices.slices) {
          const result = await service.ingest(slice);
          if (!result.ok) throw new CommandError(done > 0 ? `${failureMessage(result)} (after ${done} blocks were stored)` : failureMessage(result));
          doc.blocks += result.blocks;
          doc.events += result.events;
          done += Array.isArray(slice) ? slice.length : 1;
          if (slices.slices.length > 1) progress.update(`ingest: ${done}/${total} blocks (${Math.floor((100 * done) / total)}%), ${doc.events} events`);
        }
        progress.done();
        emit(g, doc, () => `stored ${doc.blocks} new block(s) and ${doc.events} event(s)`);
      });
    },
  });
}

/**
 * The batch as slices of at most INGEST_SLICE blocks, after the whole of it was checked the way
 * the ingest service checks one batch (schema, networks, height jumps against the stored tips):
 * a bad block anywhere stores nothing, and the error names its position in the file, not in a slice.
 */
async function sliceBatch(ctx: Context, batch: unknown): Promise<Result<{ slices: unknown[] }, InvalidInput>> {
  if (!Array.isArray(batch) || batch.length <= INGEST_SLICE) return { ok: true, slices: [batch] };
  const parsed = parseBatch(batch);
  if (!parsed.ok) return parsed;
  const unknown = parsed.blocks.find((b) => !findNetwork(ctx.config.networks, b.network));
  if (unknown) return invalidInput(unknownNetwork(unknown.network));
  const placed = parsed.blocks.map((b, i) => ({ network: b.network, height: b.height, field: `[${i}].` }));
  const jump = heightJumpError(placed, await networkTips(ctx.db, placed.map((b) => b.network)), ctx.config.ingest.max_height_jump);
  if (jump) return invalidInput(jump);
  const slices: unknown[] = [];
  for (let i = 0; i < batch.length; i += INGEST_SLICE) slices.push(batch.slice(i, i + INGEST_SLICE));
  return { ok: true, slices };
}
