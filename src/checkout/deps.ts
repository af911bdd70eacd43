import type { Config } from "../config/schema.ts";
import type { Db } from "../db/database.ts";
import type { Clock } from "../lib/clock.ts";
import type { ClientIpResolver } from "../net/client-ip.ts";
import type { CheckoutHub } from "./hub.ts";

/** What the checkout pages need, built once by the composition root (src/daemon.ts). */
export type CheckoutDeps = {
  config: Config;
  db: Db;
  clock: Clock;
  /** The client's address, for the per-address rate limit and stream bound. */
  clientIp: ClientIpResolver;
  /** The live-update streams of this daemon. */
  checkout: CheckoutHub;
};
