import { type Static, Type as T } from "@sinclair/typebox";
import type { Kysely } from "kysely";
import { findNetwork, unknownNetwork } from "../config/networks.ts";
import type { NetworkConfig } from "../config/schema.ts";
import type { DB } from "../db/schema.ts";
import type { Clock } from "../lib/clock.ts";
import { type Failure, type InvalidInput, invalidInput, type Result } from "../lib/error-codes.ts";
import { PrintableString } from "../lib/printable.ts";
import { checkBody } from "../lib/value-errors.ts";
import { invalidAddress, normalizeNetworkAddress } from "../chain/address/normalize.ts";
import { addWatch, type WatchView, watchView } from "./watches.ts";

/** The body of POST /v1/address-watch/addresses (and of the cabinet's add form). */
export const AddWatchSchema = T.Object(
  {
    // Config caps slugs at 32 characters; the cap keeps the echoed "Unknown network" small.
    network_slug: T.String({ minLength: 1, maxLength: 64 }),
    address: PrintableString(),
  },
  { additionalProperties: false },
);

export type WatchAddressDeps = {
  db: Kysely<DB>;
  clock: Clock;
  config: { networks: Record<string, NetworkConfig> };
  /** The account snapshots GET /v1/account serves, dropped when the slots in use change. */
  snapshots: { invalidate(accountId: string): void };
};

/** `created: false`: the account already watched this address; the same record, no extra slot. */
export type WatchAddressResult = Result<{ created: boolean; watch: WatchView }, InvalidInput | Failure<"SLOT_LIMIT">>;

/** What an add names, checked and normalized: a configured network and an address valid on it, in its stored form. */
export function watchTarget(
  networks: Record<string, NetworkConfig>,
  input: Static<typeof AddWatchSchema>,
): Result<{ network: string; address: string }, InvalidInput> {
  const network = findNetwork(networks, input.network_slug);
  if (!network) return invalidInput(unknownNetwork(input.network_slug));
  const address = normalizeNetworkAddress(network, input.address);
  if (address === null) return invalidInput(invalidAddress(input.network_slug, network, input.address));
  return { ok: true, network: input.network_slug, address };
}

/**
 * Watches an address for an account (docs/api.md): the network must be configured, the
 * address valid on it (stored normalized), and a new watch needs a free slot.
 */
export async function watchAddress(deps: WatchAddressDeps, accountId: string, body: unknown): Promise<WatchAddressResult> {
  const checked = checkBody(AddWatchSchema, body);
  if (!checked.ok) return checked;
  const target = watchTarget(deps.config.networks, checked.body);
  if (!target.ok) return target;
  const outcome = await addWatch(deps.db, { accountId, network: target.network, address: target.address, now: deps.clock.now() });
  if (!outcome.ok) return outcome;
  if (outcome.created) deps.snapshots.invalidate(accountId);
  return { ok: true, created: outcome.created, watch: watchView(outcome.watch) };
}
