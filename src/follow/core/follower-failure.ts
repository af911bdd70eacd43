import type { Explained } from "../../lib/error-codes.ts";

/**
 * Why one poll of a follower failed, as a value: the reorg brake holding the network, a node whose
 * blocks do not link, or a batch the ingest refused for a reason the follower cannot act on. Shown
 * as the follower's `last_error` until a poll goes well.
 */
export type FollowerFailure = Explained<"FOLLOWER_PAUSED" | "UPSTREAM_MALFORMED" | "INVALID_INPUT" | "BLOCK_HEIGHT_MISMATCH">;
