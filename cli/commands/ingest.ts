import { defineCommand } from "citty";
import type { IngestedBlock } from "../../src/chain/block.ts";
import type { Context } from "../../src/context.ts";
import { blocksFromFeed, type FeedBatch } from "../../src/ingest/block-from-feed.ts";
import { networkTips } from "../../src/ingest/blocks.ts";
import { heightJumpError } from "../../src/ingest/height-jump.ts";
import { createIngestPipeline } from "../../src/ingest/pipeline.ts";
import { type InvalidInput, invalidInput, type Result } from "../../src/lib/error-codes.ts";
import { failureMessage } from "../../src/lib/failures.ts";
import { jsonLogger } from "../../src/lib/log.ts";
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
        // A running daemon's delivery loop picks the queued webhooks up on its next tick. The
        // pipeline logs each stored slice as serve logs a batch (`ingested`, the same JSON line),
        // on stderr: stdout keeps the one result document.
        const log = jsonLogger((line) => progress.above(line), () => ctx.clock.now(), ctx.config.log.level);
        const service = createIngestPipeline({ ...ctx, log });
        // The whole file is checked before a block of it is stored; its blocks then go in slices.
        const feed = blocksFromFeed(batch, ctx.config.networks);
        if (!feed.ok) throw new CommandError(failureMessage(feed));
        const slices = await sliceBatch(ctx, feed);
        if (!slices.ok) throw new CommandError(slices.error);
        const total = feed.blocks.length;
        let done = 0;
        const doc = { blocks: 0, events: 0 };
        for (const slice of slices.slices) {
          const start = done;
          const result = await service.ingestBlocks(slice, { fieldOf: (i) => feed.fieldOf(start + i) });
          if (!result.ok) throw new CommandError(done > 0 ? `${failureMessage(result)} (after ${done} blocks were stored)` : failureMessage(result));
          doc.blocks += result.blocks;
          doc.events += result.events;
          done += slice.length;
          if (slices.slices.length > 1) progress.update(`ingest: ${done}/${total} blocks (${Math.floor((100 * done) / total)}%), ${doc.events} events`);
        }
        progress.done();
        emit(g, doc, () => `stored ${doc.blocks} new block(s) and ${doc.events} event(s)`);
      });
    },
  });
}

/**
 * A checked batch as slices of at most INGEST_SLICE blocks, after the height jumps of the whole of
 * it were checked against the stored tips the way the ingest service checks one batch: a bad block
 * anywhere stores nothing, and the error names its position in the file, not in a slice.
 */
async function sliceBatch(ctx: Context, feed: FeedBatch): Promise<Result<{ slices: IngestedBlock[][] }, InvalidInput>> {
  const { blocks } = feed;
  if (blocks.length <= INGEST_SLICE) return { ok: true, slices: [blocks] };
  const placed = blocks.map((b, i) => ({ network: b.network, height: b.height, field: feed.fieldOf(i) }));
  const jump = heightJumpError(placed, await networkTips(ctx.db, placed.map((b) => b.network)), ctx.config.ingest.max_height_jump);
  if (jump) return invalidInput(jump);
  const slices: IngestedBlock[][] = [];
  for (let i = 0; i < blocks.length; i += INGEST_SLICE) slices.push(blocks.slice(i, i + INGEST_SLICE));
  return { ok: true, slices };
}
