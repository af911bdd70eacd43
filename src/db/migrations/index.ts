import type { Migration } from "kysely";
import * as m0001 from "./0001_core.ts";
import * as m0002 from "./0002_address_watch.ts";
import * as m0003 from "./0003_delivery.ts";
import * as m0004 from "./0004_payments.ts";
import * as m0005 from "./0005_payment_transfer_confirmation.ts";
import * as m0006 from "./0006_block_subscriptions.ts";
import * as m0007 from "./0007_reorg.ts";
import * as m0008 from "./0008_rpc_usage.ts";
import * as m0009 from "./0009_cabinet_sessions.ts";
import * as m0010 from "./0010_credit_grants.ts";
import * as m0011 from "./0011_meta.ts";
import * as m0012 from "./0012_follower.ts";
import * as m0013 from "./0013_watch_position.ts";
import * as m0014 from "./0014_follower_leader.ts";
import * as m0015 from "./0015_rate_windows.ts";
import * as m0016 from "./0016_credit_leases.ts";
import * as m0017 from "./0017_watched_outputs.ts";
import * as m0018 from "./0018_mempool_transfers.ts";
import * as m0019 from "./0019_endpoint_health.ts";
import * as m0020 from "./0020_delivery_replay.ts";
import * as m0021 from "./0021_delivery_throttle.ts";
import * as m0022 from "./0022_webhook_secret_rotation.ts";
import * as m0023 from "./0023_lead_epochs.ts";
import * as m0024 from "./0024_retention.ts";
import * as m0025 from "./0025_rate_leases.ts";
import * as m0026 from "./0026_payment_wallets.ts";
import * as m0027 from "./0027_checkout.ts";
import * as m0028 from "./0028_replay_bounds.ts";
import * as m0029 from "./0029_notice_resolution.ts";
import * as m0030 from "./0030_webhook_endpoints.ts";
import * as m0031 from "./0031_upstream_quorum.ts";
import * as m0032 from "./0032_account_disabled.ts";
import * as m0033 from "./0033_prunable_deliveries.ts";
import * as m0034 from "./0034_orders_newest_first.ts";
import * as m0035 from "./0035_unsettled_due_index.ts";
import * as m0036 from "./0036_delivery_bodies.ts";
import * as m0037 from "./0037_watch_counts.ts";
import * as m0038 from "./0038_outbox_row_updates.ts";

/** Every migration, imported statically so they ship inside the compiled binary. Names sort in order. */
export const migrations: Record<string, Migration> = {
  "0001_core": m0001,
  "0002_address_watch": m0002,
  "0003_delivery": m0003,
  "0004_payments": m0004,
  "0005_payment_transfer_confirmation": m0005,
  "0006_block_subscriptions": m0006,
  "0007_reorg": m0007,
  "0008_rpc_usage": m0008,
  "0009_cabinet_sessions": m0009,
  "0010_credit_grants": m0010,
  "0011_meta": m0011,
  "0012_follower": m0012,
  "0013_watch_position": m0013,
  "0014_follower_leader": m0014,
  "0015_rate_windows": m0015,
  "0016_credit_leases": m0016,
  "0017_watched_outputs": m0017,
  "0018_mempool_transfers": m0018,
  "0019_endpoint_health": m0019,
  "0020_delivery_replay": m0020,
  "0021_delivery_throttle": m0021,
  "0022_webhook_secret_rotation": m0022,
  "0023_lead_epochs": m0023,
  "0024_retention": m0024,
  "0025_rate_leases": m0025,
  "0026_payment_wallets": m0026,
  "0027_checkout": m0027,
  "0028_replay_bounds": m0028,
  "0029_notice_resolution": m0029,
  "0030_webhook_endpoints": m0030,
  "0031_upstream_quorum": m0031,
  "0032_account_disabled": m0032,
  "0033_prunable_deliveries": m0033,
  "0034_orders_newest_first": m0034,
  "0035_unsettled_due_index": m0035,
  "0036_delivery_bodies": m0036,
  "0037_watch_counts": m0037,
  "0038_outbox_row_updates": m0038,
};
