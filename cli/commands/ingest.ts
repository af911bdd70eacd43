import { defineCommand } from "citty";
import { ingestServiceFor } from "../../src/daemon.ts";
import { withContext } from "../context.ts";
import { CommandError, type Globals } from "../globals.ts";
import { emit } from "../output.ts";
import { globalArgs } from "./common.ts";

/** The batch text from a file, or from stdin for `-`. */
async function readBatch(source: string): Promise<string> {
  if (source === "-") return Bun.stdin.text();
  try {
    return await Bun.file(source).text();
  } catch (e) {
    throw new CommandError(`cannot read ${source}: ${(e as Error).message}`);
  }
}

export function ingestCommand(g: Globals) {
  return defineCommand({
    meta: { name: "ingest", description: "Feed a block batch (one block or an array) through the same code as POST /ingest/blocks" },
    args: { ...globalArgs, file: { type: "positional", description: "Batch JSON file, or - for stdin", required: true } },
    run: async ({ args }) => {
      const source = String(args.file);
      const text = await readBatch(source);
      let batch: unknown;
      try {
        batch = JSON.parse(text);
      } catch (e) {
        throw new CommandError(`${source === "-" ? "stdin" : source} is not valid JSON: ${(e as Error).message}`);
      }
      await withContext(g, async (ctx) => {
        // A running daemon's delivery loop picks the queued webhooks up on its next tick.
        const result = await ingestServiceFor(ctx).ingest(batch);
        if (!result.ok) throw new CommandError(result.error);
        const doc = { blocks: result.blocks, events: result.events };
        emit(g, doc, () => `stored ${doc.blocks} new block(s) and ${doc.events} event(s)`);
      });
    },
  });
}
