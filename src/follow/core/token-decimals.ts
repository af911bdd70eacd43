import type { TokenConfig } from "../../config/schema.ts";
import type { Db } from "../../db/database.ts";
import type { Clock } from "../../lib/clock.ts";

/** Token decimals of one network: `[networks.X.tokens]` first, then the database cache, then the contract's `decimals()`. */
export type TokenDecimals = {
  /** Makes sure every contract's decimals are known (asking the node at most once per contract). */
  resolve(contracts: Iterable<string>): Promise<void>;
  /** The decimals of a resolved contract; null when it has none usable (amounts are then raw units). */
  decimalsOf(contract: string): number | null;
};

/**
 * A contract's `decimals()` as a node answers it: the number; null when the node answered but not
 * with a usable one (reverted, no such function, above 36) — a fact, cached; a throw when no node
 * answered, so the block is read again later.
 */
export type DecimalsQuery = (contract: string) => Promise<number | null>;

/** Contracts whose decimals a follower keeps in memory besides `[networks.X.tokens]`; the least recently used go first. */
const MAX_LEARNED = 50_000;

/** Token decimals learned longer ago than this are deleted by retention and asked again when next seen. */
export const TOKEN_DECIMALS_TTL_MS = 90 * 86_400_000;

/**
 * Token decimals of any family: `tokens` (keyed as the follower names contracts), then the
 * `token_decimals` table, then `ask`, whose answer is stored in the table.
 */
export function createDecimalsCache(deps: { db: Db; clock: Clock; network: string; tokens: Record<string, TokenConfig>; ask: DecimalsQuery }): TokenDecimals {
  const configured = new Map<string, number | null>(Object.entries(deps.tokens).map(([address, t]) => [address, t.decimals]));
  // What was learned, least recently used first; bounded: a chain keeps minting token contracts.
  const known = new Map<string, number | null>(configured);
  const remember = (contract: string, decimals: number | null) => {
    known.delete(contract);
    known.set(contract, decimals);
    while (known.size > configured.size + MAX_LEARNED) {
      const oldest = known.keys().next().value as string;
      known.delete(oldest);
      if (configured.has(oldest)) known.set(oldest, configured.get(oldest) ?? null);
    }
  };

  /** Asks the node and caches the answer; blocks fetched at once share one question per contract. */
  const inFlight = new Map<string, Promise<void>>();
  const learn = async (contract: string) => {
    const decimals = await deps.ask(contract);
    remember(contract, decimals);
    await deps.db
      .insertInto("token_decimals")
      .values({ network: deps.network, address: contract, decimals, created_at: deps.clock.now() })
      .onConflict((oc) => oc.columns(["network", "address"]).doNothing())
      .execute();
  };

  return {
    async resolve(contracts) {
      const missing: string[] = [];
      // Those in use move to the recent end, so the bound never drops one between resolve and decimalsOf.
      for (const c of contracts) known.has(c) ? remember(c, known.get(c) ?? null) : missing.push(c);
      if (missing.length === 0) return;
      const cached = await deps.db.selectFrom("token_decimals").select(["address", "decimals"]).where("network", "=", deps.network).where("address", "in", missing).execute();
      for (const row of cached) remember(row.address, row.decimals);
      for (const contract of missing) {
        if (known.has(contract)) continue;
        let asked = inFlight.get(contract);
        if (!asked) {
          asked = learn(contract).finally(() => inFlight.delete(contract));
          inFlight.set(contract, asked);
        }
        await asked;
      }
    },
    decimalsOf: (contract) => known.get(contract) ?? null,
  };
}
