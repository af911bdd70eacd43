import { failureMessage } from "../lib/failures.ts";
import type { AddItemOutcome } from "../watch/watch-batch.ts";

// The cabinet's "Watch a list" form: what a pasted list holds, and the one notice that answers it.

/** Refused items the notice names one by one; the rest are counted. */
const NAMED_REFUSALS = 10;

/** The addresses of a pasted text: one a line, or separated by spaces, tabs or commas; blanks dropped. */
export function pastedAddresses(text: string): string[] {
  return text.split(/[\s,]+/).filter((a) => a !== "");
}

/** `Watching 3 new addresses; 1 already watched; 2 refused: 0x12 (Invalid address for network eth), …`. */
export function pastedNotice(pasted: readonly string[], results: readonly AddItemOutcome[]): string {
  const created = results.filter((r) => r.ok && r.created).length;
  const already = results.filter((r) => r.ok && !r.created).length;
  const refused = results.flatMap((r, i) => (r.ok ? [] : [`${pasted[i]} (${failureMessage(r)})`]));
  const parts = [`Watching ${created} new address${created === 1 ? "" : "es"}`];
  if (already > 0) parts.push(`${already} already watched`);
  if (refused.length > 0) {
    const more = refused.length - NAMED_REFUSALS;
    parts.push(`${refused.length} refused: ${refused.slice(0, NAMED_REFUSALS).join(", ")}${more > 0 ? `, and ${more} more` : ""}`);
  }
  return `${parts.join("; ")}.`;
}
