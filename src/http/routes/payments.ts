import { Elysia, t } from "elysia";
import { createPaymentOrder } from "../../payments/create-order.ts";
import { getPaymentOrder } from "../../payments/get-order.ts";
import { DEFAULT_LIST_LIMIT, listPaymentOrders, MAX_LIST_LIMIT } from "../../payments/list-orders.ts";
import { PAYMENT_STATUSES } from "../../payments/orders.ts";
import { readPaymentSettings, updatePaymentSettings } from "../../payments/settings.ts";
import { putWallet } from "../../payments/wallets/put-wallet.ts";
import { removeWallet } from "../../payments/wallets/remove-wallet.ts";
import { listWallets } from "../../payments/wallets/wallets.ts";
import { rawQuery } from "../../net/request-target.ts";
import { type AppDeps, signatureDeps } from "../deps.ts";
import { fromFailure } from "../errors.ts";
import { signature } from "../plugins/signature.ts";
import { jsonRequest, responses, says } from "../openapi/responses.ts";

/** POST/GET /v1/payments, GET /v1/payments/{payment_id}, GET/PUT /v1/payments/settings, the payment wallets. */
export function paymentRoutes(deps: AppDeps) {
  return (
    new Elysia()
      .use(signature(signatureDeps(deps)))
      .post(
        "/v1/payments",
        async ({ auth, body, set }) => {
          const outcome = await createPaymentOrder(deps, auth.accountId, body);
          if (!outcome.ok) throw fromFailure(outcome);
          set.status = 201;
          return outcome.order;
        },
        {
          detail: {
            summary: "Create a payment order; its address is watched implicitly and takes no address slot",
            tags: ["payments"],
            requestBody: jsonRequest("CreatePaymentOrder"),
            responses: responses(
              { 201: ["PaymentOrder", "Created"] },
              [
                [400, "A field error naming the field, or `address is required: no wallet for network X`"],
                [409, `${says("ORDER_EXISTS")}, ${says("ADDRESS_BUSY")}, ${says("ADDRESS_DERIVED")} or ${says("WALLET_EXHAUSTED")}`],
                413,
                415,
              ],
            ),
          },
        },
      )
      .get(
        "/v1/payments",
        async ({ auth, request }) => {
          const listed = await listPaymentOrders(deps, auth.accountId, rawQuery(request));
          if (!listed.ok) throw fromFailure(listed);
          return { payments: listed.payments };
        },
        {
          query: t.Object({
            order_id: t.Optional(t.String({ description: "Only the order with this merchant order_id" })),
            status: t.Optional(t.String({ description: `One of ${PAYMENT_STATUSES.join(", ")}` })),
            limit: t.Optional(t.String({ description: `1..${MAX_LIST_LIMIT}, default ${DEFAULT_LIST_LIMIT}` })),
          }),
          detail: { summary: "The account's payment orders, newest first", tags: ["payments"], responses: responses({ 200: ["PaymentList", "The orders"] }, [[400, "A bad status or limit"]]) },
        },
      )
      // Registered before /v1/payments/:payment_id so "settings" is never taken for an id.
      .get("/v1/payments/settings", async ({ auth }) => readPaymentSettings(deps.db, auth.accountId), {
        detail: { summary: "Where payment-order webhooks go", tags: ["payments"], responses: responses({ 200: ["PaymentSettings", "The settings"] }) },
      })
      .put(
        "/v1/payments/settings",
        async ({ auth, body }) => {
          const outcome = await updatePaymentSettings(deps, auth.accountId, body);
          if (!outcome.ok) throw fromFailure(outcome);
          return outcome.settings;
        },
        {
          detail: {
            summary: "Set the payment webhook URL; null sends payment-order webhooks to the address-watch webhook when enabled",
            tags: ["payments"],
            requestBody: jsonRequest("PaymentSettings"),
            responses: responses({ 200: ["PaymentSettings", "The settings as stored"] }, [[400, "A field error or a refused URL"], 413, 415]),
          },
        },
      )
      // Registered before /v1/payments/:payment_id, like settings.
      .get("/v1/payments/wallets", async ({ auth }) => listWallets(deps, auth.accountId), {
        detail: { summary: "The account's payment wallets, one per network", tags: ["payments"], responses: responses({ 200: ["PaymentWalletList", "The wallets"] }) },
      })
      .put(
        "/v1/payments/wallets/:network",
        async ({ auth, body, params }) => {
          const outcome = await putWallet(deps, auth.accountId, params.network, body);
          if (!outcome.ok) throw fromFailure(outcome);
          return outcome.wallet;
        },
        {
          detail: {
            summary: "Set the account's payment wallet on a network: orders without an address get the next address derived from its key",
            tags: ["payments"],
            requestBody: jsonRequest("PutPaymentWallet"),
            responses: responses(
              { 200: ["PaymentWallet", "The wallet as stored; never its key"] },
              [[400, "`This is a private key; give the extended public key.`, or why the key or gap_limit is refused"], 413, 415],
            ),
          },
        },
      )
      .delete(
        "/v1/payments/wallets/:network",
        async ({ auth, params }) => {
          const outcome = await removeWallet(deps, auth.accountId, params.network);
          if (!outcome.ok) throw fromFailure(outcome);
          return { network: outcome.network, deleted: outcome.deleted };
        },
        {
          detail: {
            summary: "Remove the account's payment wallet on a network; orders made keep their addresses",
            tags: ["payments"],
            responses: responses({ 200: ["PaymentWalletDeleted", "Removed"] }, [[404, says("WALLET_NOT_FOUND")]]),
          },
        },
      )
      .get(
        "/v1/payments/:payment_id",
        async ({ auth, params }) => {
          const found = await getPaymentOrder(deps, auth.accountId, params.payment_id);
          if (!found.ok) throw fromFailure(found);
          return found.order;
        },
        { detail: { summary: "One payment order", tags: ["payments"], responses: responses({ 200: ["PaymentOrder", "The order"] }, [[404, says("PAYMENT_NOT_FOUND")]]) } },
      )
  );
}
