import { type Static, type TSchema, Type as T } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { type ValueError, ValueErrorType } from "@sinclair/typebox/value";
import { MAX_DECIMALS } from "../lib/amount.ts";
import { type InvalidInput, invalidInput, type Result } from "../lib/error-codes.ts";
import { PrintableString } from "../lib/printable.ts";
import { describeStringMiss, describeValueError, fieldName } from "../lib/value-errors.ts";

// The same shape parseRawInteger accepts; 78 digits hold uint256 max.
const RAW_INTEGER_PATTERN = "^(0|[1-9][0-9]*)$";
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

const Nullable = <S extends TSchema>(schema: S) => T.Union([schema, T.Null()]);
// `x-amount: "raw"`: a refusal says why a value is none (value-errors.ts), a JSON number included.
const RawValue = T.String({ pattern: RAW_INTEGER_PATTERN, maxLength: 78, "x-amount": "raw", description: "Integer in the smallest unit, as a string" });
const Hash = PrintableString({ minLength: 1, maxLength: 256 });
// Feed addresses are free text: an address that is no valid address of the family never matches.
// Capped like hashes, so a batch cannot smuggle megabytes into one event body.
const Address = PrintableString({ maxLength: 256 });

export const TransferSchema = T.Object({
  asset: T.Optional(Nullable(PrintableString({ minLength: 1, maxLength: 256, description: "Token contract; null or absent = native" }))),
  from: T.Optional(Nullable(Address)),
  to: T.Optional(Nullable(Address)),
  value: RawValue,
  decimals: T.Optional(Nullable(T.Integer({ minimum: 0, maximum: MAX_DECIMALS }))),
  // evm networks only (block-from-feed.ts checks the combinations): absent = erc20 for a token.
  token_standard: T.Optional(
    T.Union([T.Literal("erc20"), T.Literal("erc721"), T.Literal("erc1155")], { description: "evm: the token's standard; absent = erc20 for a token" }),
  ),
  token_id: T.Optional(T.String({ pattern: RAW_INTEGER_PATTERN, maxLength: 78, description: "erc721 and erc1155: the token id (uint256), as a string" })),
  internal: T.Optional(T.Boolean({ description: "Native value moved by a call inside a contract's execution (asset null)" })),
});

/** An outpoint a UTXO transaction spends: the transaction that created the output and its index there. */
export const SpentOutpointSchema = T.Object({
  txid: Hash,
  vout: T.Integer({ minimum: 0, maximum: 0xffffffff }),
});

/** An output of a UTXO transaction; its position in `outputs` is its index (vout). */
export const OutputSchema = T.Object({
  address: Nullable(Address),
  value: RawValue,
});

export const TransactionSchema = T.Object({
  hash: Hash,
  from: T.Optional(Nullable(Address)),
  to: T.Optional(Nullable(Address)),
  value: RawValue,
  transfers: T.Optional(T.Array(TransferSchema)),
  // UTXO chains (the btc family): what the transaction spends and what it creates.
  inputs: T.Optional(T.Array(SpentOutpointSchema)),
  outputs: T.Optional(T.Array(OutputSchema)),
});

/** One block as an indexer sends it to POST /ingest/blocks (docs/chains.md). Unknown fields are ignored. */
export const BlockSchema = T.Object({
  network: T.String({ minLength: 1, maxLength: 64 }),
  height: T.Integer({ minimum: 0, maximum: MAX_SAFE }),
  hash: Hash,
  parent_hash: T.Optional(Nullable(Hash)),
  timestamp: T.Optional(Nullable(T.Integer({ minimum: 0, maximum: MAX_SAFE, description: "Unix seconds" }))),
  transactions: T.Array(TransactionSchema),
});

/** The request body: one block or an array of blocks. */
export const BatchSchema = T.Union([BlockSchema, T.Array(BlockSchema)]);

export type BlockInput = Static<typeof BlockSchema>;
export type TransactionInput = Static<typeof TransactionSchema>;
export type TransferInput = Static<typeof TransferSchema>;
export type OutputInput = Static<typeof OutputSchema>;

export type ParsedBatch = Result<{ blocks: BlockInput[] }, InvalidInput>;

// Compiled once: a 16 MiB batch is checked in a few milliseconds instead of being interpreted.
const checkBlock = TypeCompiler.Compile(BlockSchema);
const checkBlocks = TypeCompiler.Compile(T.Array(BlockSchema));

/**
 * Validates a parsed body. The first problem comes back as one sentence naming the field:
 * `transactions[3].hash is required` for a single block, `[1].transactions[3].hash is required`
 * for the second block of an array.
 */
export function parseBatch(raw: unknown): ParsedBatch {
  if (Array.isArray(raw)) {
    if (checkBlocks.Check(raw)) return { ok: true, blocks: raw };
    return invalidInput(describeBatchError(checkBlocks.Errors(raw).First()));
  }
  if (checkBlock.Check(raw)) return { ok: true, blocks: [raw] };
  return invalidInput(describeBatchError(checkBlock.Errors(raw).First()));
}

/** describeValueError, plus the shape it cannot word well: nullable fields. */
function describeBatchError(e: ValueError | undefined): string {
  if (!e) return "body is invalid";
  const field = fieldName(e.path) || "body";
  const anyOf = e.schema.anyOf as TSchema[] | undefined;
  const nonNull = anyOf?.length === 2 && anyOf[1].type === "null" ? anyOf[0] : undefined;
  if (e.type === ValueErrorType.Union && nonNull) {
    const miss = typeof e.value === "string" ? describeStringMiss(field, nonNull, e.value) : null;
    if (miss) return miss;
    if (nonNull.type === "integer") return `${field} must be an integer from ${nonNull.minimum} to ${nonNull.maximum}, or null`;
    return `${field} must be ${nonNull.minLength ? "a non-empty" : "a"} string or null`;
  }
  // A whole body of the wrong type: say what is expected instead of "body must be an object".
  if (e.path === "" && e.type === ValueErrorType.Object) return "body must be a block object or an array of blocks";
  return describeValueError(e);
}
