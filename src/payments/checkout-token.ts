import { sha256Hex } from "../auth/canonical.ts";
import { randomBytes } from "../lib/random.ts";

// The checkout token of an order (docs/checkout.md): the secret part of its public payment page's
// address, `<public_url>/pay/<token>`. Random, so nothing about the order (its payment_id, its
// account, the time) predicts it; made once with the order and never changed.

/** Random bytes of a token: 192 bits, 32 base64url characters. */
const TOKEN_BYTES = 24;

/** Where the checkout pages live; a page's address is this followed by its token. */
export const CHECKOUT_PATH = "/pay/";

/** A new checkout token: 24 random bytes from the system's CSPRNG, base64url without padding. */
export function newCheckoutToken(): string {
  return randomBytes(TOKEN_BYTES).toString("base64url");
}

/**
 * What an order is looked up by: the hex SHA-256 of the token as given. Any string hashes to 64 hex
 * digits, so an unknown, a malformed and a real token cost the same indexed look-up, and how long
 * it takes says nothing about how close a guess came to a stored token's characters.
 */
export function checkoutKey(token: string): string {
  return sha256Hex(token);
}

/** The payer's page of an order: `<publicUrl>/pay/<token>`. */
export function checkoutUrl(publicUrl: string, token: string): string {
  return `${publicUrl}${CHECKOUT_PATH}${token}`;
}
