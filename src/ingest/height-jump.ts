/** A block as the height-jump rule sees it; `field` prefixes the message (`[2].` in an array batch). */
export type PlacedBlock = { network: string; height: number; field: string };

/**
 * The refusal for the first block that lands more than `maxJump` heights above its network's tip,
 * or null. The tip is the highest stored height and rises with each block of the batch in order,
 * so a batch catching up block by block passes; a network with no stored block takes its first
 * block at any height (an indexer may start anywhere). Without this rule one block at height
 * 2^53 − 1 would become the tip for good, and every later payment would count as confirmed.
 */
export function heightJumpError(blocks: readonly PlacedBlock[], storedTips: ReadonlyMap<string, number>, maxJump: number): string | null {
  const tips = new Map(storedTips);
  for (const b of blocks) {
    const tip = tips.get(b.network);
    if (tip !== undefined && b.height - tip > maxJump) {
      return `${b.field}height must be at most ${maxJump} above the tip of network ${b.network} (${tip})`;
    }
    if (tip === undefined || b.height > tip) tips.set(b.network, b.height);
  }
  return null;
}
