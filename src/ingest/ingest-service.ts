import type { Transaction } from "kysely";
import type { DB } from "../db/schema.ts";
import type { InvalidInput } from "../lib/error-codes.ts";
import type { ChainRefusal, Reorg } from "./reorg.ts";

// Ingest as its feeds see it: POST /ingest/blocks, the chain followers and `chainwatch ingest`
// hand a batch to `ingest(raw)` of the pipeline that `serve` or the CLI built (pipeline.ts).

/** `reorgs` lists the reorgs the batch applied; a refusal carries a code (INVALID_INPUT, or a ChainRefusal's) the follower can act on. */
export type IngestResult = { ok: true; blocks: number; events: number; reorgs: Reorg[] } | InvalidInput | ({ ok: false } & ChainRefusal);

/**
 * How a feed may condition its batch: `fence` runs first inside the batch's write transaction and
 * throws to refuse the whole batch (a follower checks there that it still leads; db/leadership.ts).
 */
export type IngestOptions = { fence?: (trx: Transaction<DB>) => Promise<void> };

/** Feeds a block batch (POST /ingest/blocks, `chainwatch ingest`) into blocks, events, webhooks and payment orders. */
export type IngestService = { ingest(raw: unknown, opts?: IngestOptions): Promise<IngestResult> };
