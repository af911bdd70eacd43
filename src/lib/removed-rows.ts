/** Rows removed per table, in the order they were removed: what a purge reports. */
export type RemovedRows = Record<string, number>;

/** How many rows a Kysely DELETE removed. */
export function removed(result: { numDeletedRows: bigint }): number {
  return Number(result.numDeletedRows);
}
