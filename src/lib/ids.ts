import { randomBytes } from "./random.ts";

/** A new opaque identifier `<prefix>_<24 lower-case hex>` (96 random bits), e.g. `aw_3f9c…`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString("hex")}`;
}

/**
 * An identifier of the same shape as `newId` that sorts by creation time: 13 hex digits of wall-clock
 * microseconds, then 44 random bits. For rows written at a high rate and indexed by id (the outbox
 * and its attempt log): random keys send every insert to a different B-tree page, each rewritten
 * into the WAL on commit, while time-ordered keys land on the same few pages. Two ids can only
 * collide when made in the same microsecond, and then at 2^-44 a pair. The time is the process's
 * high-resolution wall clock, not the injected clock: it orders ids, it means nothing in the domain.
 */
export function newTimeOrderedId(prefix: string): string {
  const micros = Math.floor((performance.timeOrigin + performance.now()) * 1000);
  const random = randomBytes(6).toString("hex").slice(1);
  return `${prefix}_${micros.toString(16).padStart(13, "0").slice(-13)}${random}`;
}
