import type { Config } from "../config/schema.ts";

/**
 * Credits one successful delivery costs (docs/webhooks.md): wallet hits the environment's
 * `address_activity` rate, payment orders its `payments` rate, blocks the network's
 * `get_block_cost`. Tests, and everything when billing is off, are free.
 */
export function deliveryPrice(config: Pick<Config, "billing" | "environment" | "networks">, d: { kind: string; event_type: string; network: string }): number {
  if (!config.billing.enabled || d.kind === "test") return 0;
  const rates = config.billing.rates[config.environment];
  switch (d.event_type) {
    case "payment":
    case "payout":
    case "other":
      return rates?.address_activity ?? 0;
    case "payment_order":
      return rates?.payments ?? 0;
    case "block":
      return config.networks[d.network]?.get_block_cost ?? 0;
    default:
      return 0;
  }
}
