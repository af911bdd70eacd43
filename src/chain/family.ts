// The chain families: which addresses a network takes (chain/address/) and how it is followed
// (follow/). Plain data, no imports: config/schema.ts builds its FamilySchema from this list.

/** Every chain family, each with an address codec in chain/address/. */
export const FAMILIES = Object.freeze(["evm", "btc", "tron", "solana", "generic"] as const);

export type Family = (typeof FAMILIES)[number];
