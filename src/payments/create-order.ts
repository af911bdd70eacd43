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
import { invalidAddress, normalizeNetworkAddress } from "../watch/address.ts";
import { findActiveOrder, normalizeAsset, type OrderView, orderView } from "./orders.ts";

// Creating a payment order (POST /v1/payments, docs/payments.md): the body's schema, the
// checks against the configured networks, and the one transaction that stores it.

/** How long an order waits for its payment when the client does not say. */
export const DEFAULT_EXPIRES_IN_SECONDS = 3600;
export const MIN_EXPIRES_IN_SECONDS = 60;
export const MAX_EXPIRES_IN_SECONDS = 30 * 86_400;

/** The body of POST /v1/payments. Unknown keys are refused so a misspelt optional field is not silently ignored. */
export const CreateOrderBody = T.Object(
  {
    order_id: PrintableString({ minLength: 1, maxLength: 128, description: "The merchant's own order identifier, unique per account" }),
    network: T.String({ description: "Network slug, e.g. eth" }),
    address: PrintableString({ description: "The address the customer pays to" }),
    // A string, never a JSON number (which cannot carry every digit); `x-amount` words the refusal (value-errors.ts).
    amount: T.String({ "x-amount": "decimal", description: "Positive decimal amount as a string, e.g. \"12.5\"; no exponent" }),
    asset: T.Optional(T.Union([PrintableString(), T.Null()], { description: "Token contract / mint; absent or null = the native coin" })),
    decimals: T.Optional(T.Integer({ minimum: 0, maximum: MAX_DECIMALS, description: "Required with asset; for the native coin it must equal the network's decimals" })),
    expires_in_seconds: T.Optional(
      T.Integer({ minimum: MIN_EXPIRES_IN_SECONDS, maximum: MAX_EXPIRES_IN_SECONDS, default: DEFAULT_EXPIRES_IN_SECONDS }),
    ),
  },
  { additionalProperties: false },
);

export type CreateOrderInput = Static<typeof CreateOrderBody>;

/** A checked order, ready to store. */
export type ValidOrder = {
  orderId: string;
  network: string;
  address: string;
  asset: string | null;
  decimals: number;
  amountRaw: bigint;
  expiresInMs: number;
};

export type ValidationResult = Result<{ order: ValidOrder }, InvalidInput>;

// Token identifiers are contract addresses on these families; elsewhere any short label is accepted.
const ASSET_IS_ADDRESS = new Set(["evm", "tron", "solana"]);

/** Checks a schema-valid body against the configured networks; each error names the field. */
export function validateOrder(networks: Record<string, NetworkConfig>, input: CreateOrderInput): ValidationResult {
  const net = findNetwork(networks, input.network);
  if (!net) return invalidInput(unknownNetwork(input.network));
  const address = normalizeNetworkAddress(net, input.address);
  if (address === null) return invalidInput(invalidAddress(input.network, net));

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
    },
  };
}

export type CreateOrderResult = Result<{ order: Payment }, InvalidInput | Failure<"ORDER_EXISTS" | "ADDRESS_BUSY">>;

/**
 * Creates an order. The duplicate and busy-address checks and the insert share one (IMMEDIATE)
 * transaction, so two concurrent requests cannot both pass them.
 */
export async function createOrder(
  deps: { db: Db; clock: Clock; networks: Record<string, NetworkConfig> },
  accountId: string,
  input: CreateOrderInput,
): Promise<CreateOrderResult> {
  const valid = validateOrder(deps.networks, input);
  if (!valid.ok) return valid;
  const v = valid.order;
  return deps.db.transaction().execute(async (trx): Promise<CreateOrderResult> => {
    // Two creations for one address (from any accounts) or one order_id run one after the other.
    await lockAccount(trx, accountId);
    await serialize(trx, `order-address:${v.network}:${v.address}`);
    const existing = await trx
      .selectFrom("payments")
      .select("id")
      .where("account_id", "=", accountId)
      .where("order_id", "=", v.orderId)
      .executeTakeFirst();
    if (existing) return { ok: false, code: "ORDER_EXISTS" };
    // One live order per address and asset: an incoming movement must name exactly one order.
    if (await findActiveOrder(trx, v.network, v.address, v.asset))
      return { ok: false, code: "ADDRESS_BUSY" };
    const now = deps.clock.now();
    const order: Payment = {
      id: newId("pay"),
      account_id: accountId,
      order_id: v.orderId,
      network: v.network,
      address: v.address,
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
    };
    await trx.insertInto("payments").values(order).execute();
    return { ok: true, order };
  });
}

export type CreateOrderDeps = { db: Db; clock: Clock; config: { networks: Record<string, NetworkConfig> } };

/** Creates an order from a POST /v1/payments body; its address is watched implicitly and takes no address slot. */
export async function createPaymentOrder(
  deps: CreateOrderDeps,
  accountId: string,
  body: unknown,
): Promise<Result<{ order: OrderView }, InvalidInput | Failure<"ORDER_EXISTS" | "ADDRESS_BUSY">>> {
  const checked = checkBody(CreateOrderBody, body);
  if (!checked.ok) return checked;
  const created = await createOrder({ db: deps.db, clock: deps.clock, networks: deps.config.networks }, accountId, checked.body);
  if (!created.ok) return created;
  return { ok: true, order: orderView(created.order) };
}
