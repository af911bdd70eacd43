import type { NetworkConfig } from "./schema.ts";

/**
 * The configured network of a slug a client or a feed sent, or undefined. Own keys only: a slug
 * such as `constructor` must not find Object.prototype's members.
 */
export function findNetwork(networks: Record<string, NetworkConfig>, slug: string): NetworkConfig | undefined {
  return Object.hasOwn(networks, slug) ? networks[slug] : undefined;
}

/** The client-facing error for a slug that names no configured network. */
export function unknownNetwork(slug: string): string {
  return `Unknown network: ${slug}`;
}
