import type { NetworkConfig } from "../config/schema.ts";
import { formatAmount } from "../lib/amount.ts";

// The payment request a wallet reads from the checkout page's QR code and "Open in wallet" link
// (docs/checkout.md). Pure: an order's address, asset and amount in, one URI out. Amounts come as
// integers in the smallest unit and leave as decimal digits (BIP-21's coins by string arithmetic,
// EIP-681's integers as they are): never an exponent, never a float.

/** What a payment request asks for: `amountRaw` of `asset` (null: the native coin) sent to `address`. */
export type PaymentRequest = { address: string; asset: string | null; decimals: number; amountRaw: bigint };

/** BIP-21's scheme when `[networks.X] uri_scheme` names none. */
export const DEFAULT_BTC_URI_SCHEME = "bitcoin";

/**
 * The payment URI of a request on `net`:
 * - btc family: BIP-21 `<uri_scheme>:<address>?amount=<coins>`; a token (btc-family networks
 *   have none a wallet could pay by URI) gets the bare address;
 * - evm: EIP-681, native `ethereum:<address>@<chain_id>?value=<wei>`, token
 *   `ethereum:<token>@<chain_id>/transfer?address=<address>&uint256=<amount_raw>`, `@<chain_id>`
 *   left out when the network has no `chain_id`;
 * - tron: the address (Tron wallets read no amount from a QR code);
 * - solana: Solana Pay's transfer request `solana:<address>?amount=<decimal>`, with
 *   `&spl-token=<mint>` for a token;
 * - generic: the address.
 */
export function paymentUri(net: NetworkConfig, request: PaymentRequest): string {
  const { address, asset, decimals, amountRaw } = request;
  switch (net.family) {
    case "btc":
      if (asset !== null) return address;
      return `${net.uri_scheme ?? DEFAULT_BTC_URI_SCHEME}:${address}?amount=${formatAmount(amountRaw, decimals)}`;
    case "evm": {
      const chain = net.chain_id === undefined ? "" : `@${net.chain_id}`;
      if (asset === null) return `ethereum:${address}${chain}?value=${amountRaw}`;
      return `ethereum:${asset}${chain}/transfer?address=${address}&uint256=${amountRaw}`;
    }
    case "solana": {
      const token = asset === null ? "" : `&spl-token=${asset}`;
      return `solana:${address}?amount=${formatAmount(amountRaw, decimals)}${token}`;
    }
    case "tron":
    case "generic":
      return address;
  }
}
