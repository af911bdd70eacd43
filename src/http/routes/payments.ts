import type { Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { Elysia, t } from "elysia";
import { describeValueError } from "../../lib/value-errors.ts";
import type { PaymentStatus } from "../../payments/lifecycle.ts";
import { CreateOrderBody, createOrder, getOrder, listOrders, orderView, PAYMENT_STATUSES } from "../../payments/orders.ts";
import { readPaymentSettings, updatePaymentSettings } from "../../payments/settings.ts";
import { type AppDeps, signatureDeps, urlSettingsDeps } from "../deps.ts";
import { FailureError, badRequest, fromFailure } from "../errors.ts";
import { integerParam, rawQuery, single } from "../query.ts";
import { signature } from "../plugins/signature.ts";
import { jsonRequest, responses } from "../openapi/responses.ts";

/** Orders listed at most per request when `limit` is absent, and the highest `limit` accepted. */
export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;

// Elysia's own body validation silently drops unknown fields; validate here so each error names its field.
function parseCreateBody(body: unknown): Static<typeof CreateOrderBody> {
  const first = Value.Errors(CreateOrderBody, body).First();
  if (!first) return body as Static<typeof CreateOrderBody>;
  throw badRequest(describeValueError(first));
}

/** The `status` filter of a payment listing (the API and the cabinet): absent, or a known status. */
export function parseStatus(raw: string | undefined): PaymentStatus | undefined {
  if (raw === undefined || raw === "") return undefined;
  if (!(PAYMENT_STATUSES as readonly string[]).includes(raw)) throw badRequest(`status must be one of ${PAYMENT_STATUSES.join(", ")}`);
  return raw as PaymentStatus;
}


/** POST/GET /v1/payments, GET /v1/payments/{payment_id}, GET/PUT /v1/payments/settings. */
export function paymentRoutes(deps: AppDeps) {
  return (
    new Elysia()
      .use(signature(signatureDeps(deps)))
      .post(
        "/v1/payments",
        async ({ auth, body, set }) => {
          const outcome = await createOrder(
            { db: deps.db, clock: deps.clock, networks: deps.config.networks },
            auth.accountId,
            parseCreateBody(body),
          );
          if (!outcome.ok) throw fromFailure(outcome);
          set.status = 201;
          return orderView(outcome.order);
        },
        {
          detail: {
            summary: "Create a payment order; its address is watched implicitly and takes no address slot",
            tags: ["payments"],
            requestBody: jsonRequest("CreatePaymentOrder"),
            responses: responses(
              { 201: ["PaymentOrder", "Created"] },
              [[400, "A field error naming the field"], [409, "Order already exists. or Address already has an active order."], 413, 415],
            ),
          },
        },
      )
      .get(
        "/v1/payments",
        async ({ auth, request }) => {
          const query = rawQuery(request);
          const orderId = single(query, "order_id") || undefined;
          const rows = await listOrders(deps.db, auth.accountId, {
            orderId,
            status: parseStatus(single(query, "status")),
            limit: integerParam(query, "limit", { min: 1, max: MAX_LIST_LIMIT, fallback: DEFAULT_LIST_LIMIT }),
          });
          return { payments: rows.map(orderView) };
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
          const outcome = await updatePaymentSettings(urlSettingsDeps(deps), auth.accountId, body);
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
      .get(
        "/v1/payments/:payment_id",
        async ({ auth, params }) => {
          const order = await getOrder(deps.db, auth.accountId, params.payment_id);
          if (!order) throw new FailureError("PAYMENT_NOT_FOUND");
          return orderView(order);
        },
        { detail: { summary: "One payment order", tags: ["payments"], responses: responses({ 200: ["PaymentOrder", "The order"] }, [[404, "Payment not found."]]) } },
      )
  );
}
