import { Elysia } from "elysia";
import { createSlidingWindowLimiter } from "../auth/rate-limiter.ts";
import { throttleKey } from "../cabinet/sign-in-throttle.ts";
import type { NetworkConfig } from "../config/schema.ts";
import { confirmationTips } from "../ingest/quorum-heights.ts";
import { type CheckoutOrder, orderByCheckoutToken } from "../payments/checkout-orders.ts";
import { JS, SCRIPT_HEADERS, SCRIPT_PATH, SECURITY_HEADERS } from "./assets.ts";
import type { CheckoutDeps } from "./deps.ts";
import { checkoutPage, notFoundPage, tooManyPage } from "./page.ts";
import { createQrCache } from "./qr.ts";
import { type CheckoutView, checkoutJson, checkoutView } from "./view-model.ts";

/** Client addresses the rate limiter remembers at most (the oldest is forgotten first). */
const MAX_CLIENTS = 50_000;

const JSON_SUFFIX = ".json";

function json(status: number, doc: unknown, extra: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(doc), { status, headers: { ...SECURITY_HEADERS, "content-type": "application/json; charset=utf-8", ...extra } });
}

/**
 * Stands in for the order when a token names none, so that a miss does the work a hit does (the
 * tip read, the view, the page) before answering 404: how long the answer takes says nothing
 * about whether a token exists. Never shown to anyone.
 */
function decoyOrder(network: string): CheckoutOrder {
  return {
    id: "pay_decoy",
    network,
    address: "decoy",
    asset: null,
    decimals: 8,
    amount_raw: "100000000",
    received_raw: "0",
    confirmed_raw: "0",
    status: "pending",
    expires_at: 0,
    description: null,
    redirect_url: null,
    unconfirmed_height: null,
  };
}

type Looked = { found: boolean; order: CheckoutOrder; view: CheckoutView; nowMs: number };

// The OpenAPI document's entries (the API reference lists these public routes beside the signed ones).
const ROUTE = { tags: ["checkout"], security: [] as Record<string, string[]>[] };
const STATE = { "application/json": { schema: { $ref: "#/components/schemas/CheckoutState" } } };
const ERROR = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } };
const RETRY_AFTER = { "Retry-After": { schema: { type: "integer" as const }, description: "Seconds to wait" } };
const NOT_FOUND = { description: "No order has this token (the HTML page, or the JSON error)", content: ERROR };
const LIMITED = { description: "More than `[checkout] per_ip_rps` requests from this client address in the last 1000 ms", headers: RETRY_AFTER, content: ERROR };

/**
 * The payers' checkout pages (docs/checkout.md): `/pay/<token>` (HTML), `/pay/<token>.json`,
 * `/pay/<token>/events` (Server-Sent Events) and the page's script. Public: no session, no key;
 * the token in the address is the only credential, and the answers carry nothing but the order's
 * payment request. Every answer but the script counts toward the client address's rate limit.
 */
export function checkoutRoutes(deps: CheckoutDeps) {
  const { config } = deps;
  const limiter = createSlidingWindowLimiter(1000, MAX_CLIENTS);
  const qr = createQrCache();
  const networks: Record<string, NetworkConfig> = config.networks;
  const decoy = decoyOrder(Object.keys(networks)[0] ?? "eth");

  /** The client's throttle key, or null when it is over its rate. */
  const admitted = (request: Request, server: Parameters<CheckoutDeps["clientIp"]>[1]): string | null => {
    const client = throttleKey(deps.clientIp(request, server));
    return limiter.tryAcquire(client, config.checkout.per_ip_rps, deps.clock.monotonic()) ? client : null;
  };

  /** The order of `token` and its view now, or the decoy's (found: false): the same statements either way. */
  const lookUp = async (token: string): Promise<Looked> => {
    const stored = await orderByCheckoutToken(deps.db, token);
    const found = stored !== undefined && networks[stored.network] !== undefined;
    const order = found ? stored : decoy;
    // The decoy's network is a configured one (the config always has the shipped networks).
    const net = networks[order.network] as NetworkConfig;
    const tips = await confirmationTips(deps.db, config, [order.network]);
    const nowMs = deps.clock.now();
    return { found, order, view: checkoutView(order, order.network, net, tips.get(order.network) ?? null, nowMs), nowMs };
  };

  return (
    new Elysia({ name: "checkout" })
      // The page's script: part of the page, not an operation of the API.
      .get(SCRIPT_PATH, () => new Response(JS, { headers: SCRIPT_HEADERS }), { detail: { hide: true } })
      .get(
        "/pay/:token",
        async ({ request, params, server }) => {
          // One parameter for both forms: the router cannot tell `<token>.json` from a token.
          const asJson = params.token.endsWith(JSON_SUFFIX);
          if (admitted(request, server) === null) return asJson ? json(429, { error: "Rate limit exceeded." }, { "retry-after": "1" }) : tooManyPage();
          const token = asJson ? params.token.slice(0, -JSON_SUFFIX.length) : params.token;
          const looked = await lookUp(token);
          if (asJson) {
            const body = checkoutJson(looked.view);
            return looked.found ? json(200, body) : json(404, { error: "Not found." });
          }
          const page = checkoutPage(token, looked.view, qr, looked.nowMs);
          return looked.found ? page : notFoundPage();
        },
        {
          detail: {
            summary: "A payer's checkout page (HTML), or, for `<token>.json`, what it shows as JSON",
            description:
              "`token` is the token of an order's checkout_url, or that token followed by `.json`. Public: the token is the credential. An unknown or malformed token answers 404 (the HTML page, or `{\"error\":\"Not found.\"}`) after the same work as a known one.",
            ...ROUTE,
            responses: { 200: { description: "The page as text/html, or (for .json) its state", content: STATE }, 404: NOT_FOUND, 429: LIMITED },
          },
        },
      )
      .get(
        "/pay/:token/events",
        async ({ request, params, server }) => {
          const client = admitted(request, server);
          if (client === null) return json(429, { error: "Rate limit exceeded." }, { "retry-after": "1" });
          const looked = await lookUp(params.token);
          if (!looked.found) return json(404, { error: "Not found." });
          const opened = deps.checkout.open(looked.order.id, client, JSON.stringify(checkoutJson(looked.view)), looked.view.final, request.signal);
          if (opened === "client_limit")
            return json(429, { error: `Too many live updates open from this address; poll /pay/${params.token}.json instead.` }, { "retry-after": "5" });
          if (opened === "total_limit") return json(503, { error: `Too many live updates open; poll /pay/${params.token}.json instead.` }, { "retry-after": "5" });
          return opened;
        },
        {
          detail: {
            summary: "Live updates of a checkout page (Server-Sent Events)",
            description:
              "text/event-stream of `status` events, each data line the page's JSON (CheckoutState): the state now, then each change within about a second of its commit; the stream ends after the event that says the order is paid, failed or expired. A comment line every 5 s keeps it open.",
            ...ROUTE,
            responses: {
              200: { description: "text/event-stream; each event's data is this JSON", content: STATE },
              404: NOT_FOUND,
              429: { ...LIMITED, description: "Over the rate limit, or `[checkout] max_streams_per_ip` streams open from this client address: poll the JSON instead" },
              503: { description: "`[checkout] max_streams` streams open on this daemon: poll the JSON instead", headers: RETRY_AFTER, content: ERROR },
            },
          },
        },
      )
      // Anything else under /pay/ is a link that leads nowhere, shown as such.
      .get("/pay/*", () => notFoundPage(), { detail: { hide: true } })
  );
}
