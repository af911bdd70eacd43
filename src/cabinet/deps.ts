import type { SnapshotCache } from "../accounts/snapshot-cache.ts";
import type { Config } from "../config/schema.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../lib/clock.ts";
import type { ClientIpResolver } from "../net/client-ip.ts";
import type { Resolver } from "../net/target-guard.ts";
import type { SecretBox } from "../secrets/secret-box.ts";

/** What the cabinet needs, built once by the composition root (src/daemon.ts) beside the API's own. */
export type CabinetDeps = {
  config: Config;
  db: Db;
  clock: Clock;
  box: SecretBox;
  /** Account snapshots (the overview), shared with GET /v1/account, so a watch change shows at once in both. */
  snapshots: SnapshotCache;
  /** The client's address, for the sign-in throttle. */
  clientIp: ClientIpResolver;
  /** Called when a test or a resend is queued, so the delivery loop runs at once. */
  wakeDelivery: () => void;
  /** Resolves webhook hostnames for the private-target check. */
  resolveHost: Resolver;
  /** Where the daemon is reached from outside: an order's checkout page address starts there. */
  publicUrl: () => string;
};
