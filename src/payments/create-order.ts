import { type Static, Type as T } from "@sinclair/typebox";
import { findNetwork, unknownNetwork } from "../config/networks.ts";
import type { NetworkConfig } from "../config/schema.ts";
import type { Db } from "../db/database.ts";
import { lockAccount, serialize } from "../db/primitives.ts";
import type { Payment } from "../db/schema.ts";
import { MAX_DECIMALS, parseAmount } from "../lib/amount.ts";
import type { Clock } from "../lib/clock.ts";
import { type Failure, type InvalidInput, invalidInput, type Result } from "../lib/error-codes.ts";
import { newId } from "../lib/ids.ts";
import { PrintableString } from "../lib/printable.ts";
import { checkBody } from "../lib/value-errors.ts";
import { invalidAddress, normalizeNetworkAddress } from "../chain/address/normalize.ts";
import { checkoutKey, newCheckoutToken } from "./checkout-token.ts";
import { normalizeAsset, type OrderView, orderView } from "./orders.ts";
import { paymentStatements } from "./sql/dialects.ts";
import { allocateAddress } from "./wallets/allocate.ts";
import type { WalletDerivers } from "./wallets/derivers.ts";
import { activeWallet } from "./wallets/wallets.ts";

// Creating a payment order (POST /v1/payments, docs/payments.md): the body's schema, the
// checks against the configured networks, and the one transaction that stores it. Without an
// address, the order takes the next address of the account's payment wallet on the network.

/** How long an order waits for its payment when the client does not say. */
export const DEFAULT_EXPIRES_IN_SECONDS = 3600;
export const MIN_EXPIRES_IN_SECONDS = 60;
export const MAX_EXPIRES_IN_SECONDS = 30 * 86_400;

/** Most characters (Unicode code points) of an order's `description`. */
export const MAX_DESCRIPTION_CHARS = 200;
/** Longest `redirect_url`: what browsers and proxies reliably carry. */
export const MAX_REDIRECT_URL_LENGTH = 2048;

/** The body of POST /v1/payments. Unknown keys are refused so a misspelt optional field is not silently ignored. */
export const CreateOrderBody = T.Object(
  {
    order_id: PrintableString({ minLength: 1, maxLength: 128, description: "The merchant's own order identifier, unique per account" }),
    network: T.String({ description: "Network slug, e.g. eth" }),
    address: T.Optional(PrintableString({ description: "The address the customer pays to; left out, the next address of the account's payment wallet on the network" })),
    // A string, never a JSON number (which cannot carry every digit); `x-amount` words the refusal (value-errors.ts).
    amount: T.String({ "x-amount": "decimal", description: "Positive decimal amount as a string, e.g. \"12.5\"; no exponent" }),
    asset: T.Optional(T.Union([PrintableString(), T.Null()], { description: "Token contract / mint; absent or null = the native coin" })),
    decimals: T.Optional(T.Integer({ minimum: 0, maximum: MAX_DECIMALS, description: "Required with asset; for the native coin it must equal the network's decimals" })),
    expires_in_seconds: T.Optional(
      T.Integer({ minimum: MIN_EXPIRES_IN_SECONDS, maximum: MAX_EXPIRES_IN_SECONDS, default: DEFAULT_EXPIRES_IN_SECONDS }),
    ),
    description: T.Optional(
      T.Union([PrintableString({ maxLength: 2 * MAX_DESCRIPTION_CHARS }), T.Null()], {
        description: `Shown to the payer on the checkout page, at most ${MAX_DESCRIPTION_CHARS} characters`,
      }),
    ),
    redirect_url: T.Optional(
      T.Union([PrintableString({ maxLength: MAX_REDIRECT_URL_LENGTH }), T.Null()], {
        description: "An absolute http(s) URL, without user name or password: the checkout page's \"Back to shop\" link once the order is paid, failed or expired",
      }),
    ),
  },
  { additionalProperties: false },
);

export type CreateOrderInput = Static<typeof CreateOrderBody>;

/** A checked order, ready to store. */
export type ValidOrder = {
  orderId: string;
  network: string;
  /** Null: the order takes its payment wallet's next address. */
  address: string | null;
  asset: string | null;
  decimals: number;
  amountRaw: bigint;
  expiresInMs: number;
  description: string | null;
  redirectUrl: string | null;
};

export type ValidationResult = Result<{ order: ValidOrder }, InvalidInput>;

// Token identifiers are contract addresses on these families; elsewhere any short label is accepted.
const ASSET_IS_ADDRESS = new Set(["evm", "tron", "solana"]);

/** Checks a schema-valid body against the configured networks; each error names the field. */
export function validateOrder(networks: Record<string, NetworkConfig>, input: CreateOrderInput): ValidationResult {
  const net = findNetwork(networks, input.network);
  if (!net) return invalidInput(unknownNetwork(input.network));
  const address = input.address === undefined ? null : normalizeNetworkAddress(net, input.address);
  if (input.address !== undefined && address === null) return invalidInput(invalidAddress(input.network, net, input.address));

  const rawAsset = input.asset ?? null;
  let asset: string | null = null;
  let decimals: number;
  if (rawAsset === null) {
    // The native coin's precision is the network's; a different value is a client mix-up, not an override.
    if (input.decimals !== undefined && input.decimals !== net.decimals)
      return invalidInput(`decimals must be ${net.decimals} (or absent) for the native asset of network ${input.network}`);
    decimals = net.decimals;
  } else {
    asset = ASSET_IS_ADDRESS.has(net.family)
      ? normalizeNetworkAddress(net, rawAsset)
      : rawAsset.trim() !== "" && rawAsset.length <= 128
        ? rawAsset
        : null;
    if (asset === null) return invalidInput(`Invalid asset for network ${input.network}`);
    if (input.decimals === undefined) return invalidInput("decimals is required when asset is given");
    decimals = input.decimals;
  }

  const amount = parseAmount(input.amount, decimals);
  if (!amount.ok) return amount;
  const shown = checkoutFields(input);
  if (!shown.ok) return shown;
  const seconds = input.expires_in_seconds ?? DEFAULT_EXPIRES_IN_SECONDS;
  return {
    ok: true,
    order: {
      orderId: input.order_id,
      network: input.network,
      address,
      asset: normalizeAsset(net.family, asset),
      decimals,
      amountRaw: amount.raw,
      expiresInMs: seconds * 1000,
      description: shown.description,
      redirectUrl: shown.redirectUrl,
    },
  };
}

/** The checkout page's merchant-given text and link, checked: the payer sees the one and follows the other. */
function checkoutFields(input: CreateOrderInput): Result<{ description: string | null; redirectUrl: string | null }, InvalidInput> {
  const description = input.description ?? null;
  if (description !== null && [...description].length > MAX_DESCRIPTION_CHARS)
    return invalidInput(`description must be at most ${MAX_DESCRIPTION_CHARS} characters`);
  const redirectUrl = input.redirect_url ?? null;
  if (redirectUrl !== null) {
    const problem = redirectUrlProblem(redirectUrl);
    if (problem) return invalidInput(`redirect_url ${problem}`);
  }
  return { ok: true, description, redirectUrl };
}

/** Why `url` cannot be a payer's way back to the shop, or null: it must be an absolute http(s) URL with a host and no credentials. */
export function redirectUrlProblem(url: string): string | null {
  if (!/^https?:\/\/[^/]/i.test(url) || !URL.canParse(url)) return "must be an absolute http(s) URL";
  const u = new URL(url);
  if (u.hostname === "") return "must be an absolute http(s) URL";
  if (u.username !== "" || u.password !== "") return "must not carry a user name or password";
  return null;
}

export type CreateOrderFailure = InvalidInput | Failure<"ORDER_EXISTS" | "ADDRESS_BUSY" | "ADDRESS_DERIVED" | "WALLET_EXHAUSTED">;

export type CreateOrderResult = Result<{ order: Payment }, CreateOrderFailure>;

/**
 * Creates an order. The duplicate and busy-address checks, the wallet index an address-less order
 * takes, and the insert share one (IMMEDIATE) transaction, so two concurrent requests cannot both
 * pass them, and a refused request hands out no index.
 */
export async function createOrder(
  deps: { db: Db; clock: Clock; networks: Record<string, NetworkConfig>; derivers: WalletDerivers },
  accountId: string,
  input: CreateOrderInput,
): Promise<CreateOrderResult> {
  const valid = validateOrder(deps.networks, input);
  if (!valid.ok) return valid;
  const v = valid.order;
  return deps.db.transaction().execute(async (trx): Promise<CreateOrderResult> => {
    // Two creations for one address (from any accounts) or one order_id run one after the other.
    await lockAccount(trx, accountId);
    if (v.address !== null) await serialize(trx, `order-address:${v.network}:${v.address}`);
    const statements = paymentStatements(trx);
    const existing = await trx.executeQuery(statements.selectOrderIdTaken(accountId, v.orderId));
    if (existing.rows.length > 0) return { ok: false, code: "ORDER_EXISTS" };
    const now = deps.clock.now();
    let address: string;
    let derived: { walletId: string; index: number } | null = null;
    if (v.address === null) {
      const wallet = await activeWallet(trx, accountId, v.network);
      if (!wallet) return invalidInput(`address is required: no wallet for network ${v.network}`);
      // Last of the checks: everything after it writes, so the index is taken only by an order that is made.
      const allocation = await allocateAddress(trx, deps, wallet, deps.networks[v.network], now);
      if ("ok" in allocation) return allocation;
      address = allocation.address;
      derived = { walletId: allocation.walletId, index: allocation.index };
    } else {
      address = v.address;
      // A wallet's address stays its order's: late payments to it keep arriving there.
      if ((await trx.executeQuery(statements.selectDerivedOrderAt(v.network, address))).rows.length > 0) return { ok: false, code: "ADDRESS_DERIVED" };
      // One live order per address and asset: an incoming movement must name exactly one order.
      if ((await trx.executeQuery(statements.selectLiveOrderAt(v.network, address, v.asset))).rows.length > 0) return { ok: false, code: "ADDRESS_BUSY" };
    }
    const token = newCheckoutToken();
    const order: Payment = {
      id: newId("pay"),
      account_id: accountId,
      order_id: v.orderId,
      network: v.network,
      address,
      asset: v.asset,
      decimals: v.decimals,
      amount_raw: v.amountRaw.toString(),
      received_raw: "0",
      confirmed_raw: "0",
      status: "pending",
      tx_hash: null,
      expires_at: now + v.expiresInMs,
      aml: null,
      created_at: now,
      updated_at: now,
      wallet_id: derived?.walletId ?? null,
      derivation_index: derived?.index ?? null,
      checkout_token: token,
      checkout_key: checkoutKey(token),
      description: v.description,
      redirect_url: v.redirectUrl,
    };
    await trx.executeQuery(statements.insertOrder(order));
    return { ok: true, order };
  });
}

export type CreateOrderDeps = { db: Db; clock: Clock; config: { networks: Record<string, NetworkConfig> }; walletDerivers: WalletDerivers; publicUrl: () => string };

/** Creates an order from a POST /v1/payments body; its address is watched implicitly and takes no address slot. */
export async function createPaymentOrder(deps: CreateOrderDeps, accountId: string, body: unknown): Promise<Result<{ order: OrderView }, CreateOrderFailure>> {
  const checked = checkBody(CreateOrderBody, body);
  if (!checked.ok) return checked;
  const created = await createOrder({ db: deps.db, clock: deps.clock, networks: deps.config.networks, derivers: deps.walletDerivers }, accountId, checked.body);
  if (!created.ok) return created;
  return { ok: true, order: orderView(created.order, deps.publicUrl()) };
}
