import type { ChainReader, ReadBlock } from "./chain-reader.ts";

/**
 * Gives an error back with `redact` applied to its message (and stack), the same object, so
 * callers still tell its kind (`instanceof ChainIdMismatch`, LeadLost…). Anything else thrown is
 * handed back as it is.
 */
export function redactError(error: unknown, redact: (text: string) => string): unknown {
  if (error instanceof Error) {
    error.message = redact(error.message);
    if (typeof error.stack === "string") error.stack = redact(error.stack);
  }
  return error;
}

/**
 * A reader whose every error has passed through its pool's `redact` (upstream/pool.ts): a
 * follower's errors become its `follow status` last_error and its log lines, and they quote what
 * the node said (its error message, a preview of a malformed field), which may echo the API key or
 * the credentials it was sent. One wrapper for every family, around everything a reader throws.
 */
export function readerRedactingErrors<B extends ReadBlock>(reader: ChainReader<B>, redact: (text: string) => string): ChainReader<B> {
  const rethrow = (e: unknown): never => {
    throw redactError(e, redact);
  };
  const { atHead } = reader;
  return {
    ...reader,
    head: () => reader.head().catch(rethrow),
    hashAt: (height) => reader.hashAt(height).catch(rethrow),
    read: (height, answered) => reader.read(height, answered).catch(rethrow),
    toBlock(block) {
      try {
        return reader.toBlock(block);
      } catch (e) {
        return rethrow(e);
      }
    },
    ...(atHead ? { atHead: (fence) => atHead(fence).catch(rethrow) } : {}),
  };
}
