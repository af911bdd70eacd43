import { Elysia } from "elysia";
import { createOwnKey, revokeOwnKey } from "../accounts/own-keys.ts";
import { setAllowIps } from "../accounts/api-keys.ts";
import { resendAccountDelivery } from "../delivery/account-resend.ts";
import { testPayments } from "../payments/sample-order.ts";
import { recoverFailedDeliveries } from "../webhooks/recover.ts";
import { queueTest } from "../webhooks/test-endpoint.ts";
import { type Failure, invalidInput, type Result } from "../lib/error-codes.ts";
import { failureMessage, failureStatus } from "../lib/failures.ts";
import { leaveBodyUnread } from "../net/unread-body.ts";
import { requestQuery } from "../net/request-target.ts";
import { unwatchAddress } from "../watch/unwatch-address.ts";
import { updateWebhook } from "../webhooks/default-endpoint.ts";
import { readEndpointSecret } from "../webhooks/endpoint-secret.ts";
import { defaultEndpoint } from "../webhooks/endpoints.ts";
import { rotateSecret } from "../webhooks/rotate-secret.ts";
import { watchAddress } from "../watch/watch-address.ts";
import { watchAddresses } from "../watch/watch-batch.ts";
import { pastedAddresses, pastedNotice } from "./pasted-list.ts";
import { secureCookieFor, sessionCookie, sessionToken } from "./cookie.ts";
import type { CabinetDeps } from "./deps.ts";
import { NOT_A_FORM, readForm } from "./form.ts";
import { FAVICON_HEADERS, FAVICON_SVG } from "./assets.ts";
import { type NoticeLink, page, SECURITY_HEADERS, type Viewer } from "./layout.ts";
import { addressesPage } from "./pages/addresses.ts";
import { deliveriesPage, recoverPeriod, UNKNOWN_RECOVER_PERIOD } from "./pages/deliveries.ts";
import { deliveryPage } from "./pages/delivery.ts";
import { deliveryOutcome } from "../delivery/delivery-log.ts";
import { eventPage } from "./pages/event.ts";
import { eventsPage } from "./pages/events.ts";
import { keysPage, parseAllowIps } from "./pages/keys.ts";
import { overviewPage } from "./pages/overview.ts";
import { paymentPage, paymentsPage } from "./pages/payments.ts";
import { accountDisabledPage, notFoundPage, signedOutPage } from "./pages/session.ts";
import { REVEAL_UNCONFIRMED, revealConfirmed, rotateBodyFromForm, type ShownSecret, testBodyFromForm, webhookBodyFromForm, webhookPage } from "./pages/webhook.ts";
import { csrfMatches, csrfTokenFor, endSession, findSession } from "./sessions.ts";
import { createSignIn } from "./sign-in.ts";
import { SIGN_IN_FAILURE_LIMIT } from "./sign-in-throttle.ts";
import type { Flash, PageContext, PageRenderer } from "./view.ts";

type Ctx = { request: Request; params: Record<string, string> };

const wantsJson = (request: Request) => (request.headers.get("accept") ?? "").includes("application/json");

/** A permanent redirect that keeps the request's query. */
function redirectKeepingQuery(request: Request, path: string): Response {
  const query = requestQuery(request);
  return new Response(null, { status: 308, headers: { location: query.size > 0 ? `${path}?${query}` : path, ...SECURITY_HEADERS } });
}

function json(status: number, doc: unknown): Response {
  return new Response(JSON.stringify(doc), { status, headers: { "content-type": "application/json; charset=utf-8", ...SECURITY_HEADERS } });
}

/** A failure as the request asks for it: `{"error": …}` with its code's status (Accept: application/json), else its page. */
function refusal(request: Request, failure: Failure, asPage: () => Response): Response {
  return wantsJson(request) ? json(failureStatus(failure), { error: failureMessage(failure) }) : asPage();
}

/**
 * What a form post did: the notice and page data it produced (a new key's secret), a page to follow
 * it on (linked after the notice; `link` in the JSON answer), or the use case's failure.
 */
type ActionResult = Result<{ notice: string; extra?: unknown; link?: NoticeLink }>;
type Action = (viewer: Viewer, form: URLSearchParams, params: Record<string, string>) => Promise<ActionResult>;

const NOT_SIGNED_IN: Failure = { ok: false, code: "NOT_SIGNED_IN" };

/** Where a queued Test delivery is followed: its own page (its attempts and result). */
const testDeliveryLink = (deliveryId: string): NoticeLink => ({ href: `/cabinet/deliveries/${encodeURIComponent(deliveryId)}`, label: "Follow it" });
const CSRF_INVALID: Failure = { ok: false, code: "CSRF_INVALID" };
const ACCOUNT_DISABLED: Failure = { ok: false, code: "ACCOUNT_DISABLED" };

const HTML = { "text/html": { schema: { type: "string" as const } } };
/** What a cabinet page or form post can answer, for the OpenAPI document. */
const PAGE_RESPONSES = {
  200: { description: "The page (a form post sent with Accept: application/json answers {message} instead)", content: HTML },
  400: { description: "The API's message for a refused form, shown with the form as typed", content: HTML },
  401: { description: "Not signed in: the signed-out page", content: HTML },
  403: { description: "A form post without the session's CSRF token, or the session's account disabled by an operator", content: HTML },
  404: { description: "Not a record of the session's account", content: HTML },
  415: { description: `A form post whose body is not a urlencoded form (the cabinet parses no JSON): ${NOT_A_FORM}`, content: HTML },
};
const LINK_REFUSED = { description: "The link is used, expired or unknown: an explanation page", content: HTML };
const TOO_MANY_ATTEMPTS = {
  description: `This client's address failed ${SIGN_IN_FAILURE_LIMIT} sign-in links in the last minute: a page saying how long to wait, with Retry-After`,
  content: HTML,
  headers: { "Retry-After": { schema: { type: "integer" as const }, description: "Seconds until the next attempt is looked at" } },
};
const detail = (summary: string, responses: Record<number, { description: string; content?: typeof HTML }> = PAGE_RESPONSES) => ({
  detail: { summary, tags: ["cabinet"], security: [], responses },
});

/**
 * The account holders' cabinet (docs/cabinet.md): server-rendered pages over the same use cases as the
 * signed API, a cookie session opened by a one-time link, and a CSRF token on every form post.
 * Every account-owned id in a URL is looked up within the session's account, so another
 * account's id is simply not found (404).
 */
export function cabinetRoutes(deps: CabinetDeps) {
  const sessionDeps = { db: deps.db, clock: deps.clock };
  const bodyLimit = deps.config.server.body_limit_bytes;
  const signIn = createSignIn({ db: deps.db, clock: deps.clock, clientIp: deps.clientIp, publicUrl: deps.config.cabinet.public_url });

  /** A failure shown as a page: the message above an empty body, with its code's status. */
  const refusedPage = (viewer: Viewer, failure: Failure) => {
    const status = failureStatus(failure);
    return page({ title: status === 404 ? "Not found" : "Refused", viewer, status, error: failureMessage(failure), body: "" });
  };

  /**
   * Runs `fn` for a live session (else 401) with the posted form (empty for a GET). A POST's body
   * is read only after the session is found (./form.ts: a urlencoded form or 415, a NUL character
   * 400), and must carry the session's CSRF token (else 403). A failure `fn` returns is shown as a
   * page with its status.
   */
  const signedIn =
    (fn: (viewer: Viewer, c: Ctx, form: URLSearchParams) => Promise<Response | Failure>) =>
    // Takes the context's two fields by name: Elysia reads a handler's source to learn what of the
    // request it uses, and one passing its whole context on would have every page read and parse
    // the headers, the cookies and the query first.
    async ({ request, params }: Ctx): Promise<Response> => {
      const token = sessionToken(request);
      const session = token ? await findSession(sessionDeps, token) : null;
      if (!token || !session) return refusal(request, NOT_SIGNED_IN, () => signedOutPage());
      if (session.disabled) return refusal(request, ACCOUNT_DISABLED, () => accountDisabledPage());
      const viewer: Viewer = { ...session, csrf: csrfTokenFor(token) };
      let form = new URLSearchParams();
      if (request.method !== "GET") {
        const posted = await readForm(request, bodyLimit);
        if (!posted.ok) return refusal(request, posted, () => refusedPage(viewer, posted));
        form = posted.form;
        if (!csrfMatches(token, form.get("csrf") ?? request.headers.get("x-csrf-token"))) return refusal(request, CSRF_INVALID, () => refusedPage(viewer, CSRF_INVALID));
      }
      const outcome = await fn(viewer, { request, params }, form);
      return outcome instanceof Response ? outcome : refusedPage(viewer, outcome);
    };

  const ctxFor = (viewer: Viewer, request: Request, flash: Flash = {}, params: Record<string, string> = {}): PageContext => ({
    deps,
    viewer,
    query: requestQuery(request),
    flash,
    params,
  });

  /** A GET page. */
  const view = (render: PageRenderer) => signedIn((viewer, c) => render(ctxFor(viewer, c.request)));

  /**
   * A form post: runs the action through the use case the signed API uses too, then renders
   * `render`'s page with the notice, or with the API's message and status (the form keeps what
   * was typed). The browser is shown the page's GET address, so a reload never posts again; a
   * record's page (one delivery) names it from the path's parameters.
   */
  const mutation = (render: PageRenderer, pageUrl: string | ((params: Record<string, string>) => string), action: Action) =>
    signedIn(async (viewer, c, form) => {
      const done = await action(viewer, form, c.params);
      const shown = { ...ctxFor(viewer, c.request, {}, c.params), query: new URLSearchParams() };
      const canonicalUrl = typeof pageUrl === "string" ? pageUrl : pageUrl(c.params);
      if (!done.ok) {
        const [status, error] = [failureStatus(done), failureMessage(done)];
        if (wantsJson(c.request)) return json(status, { error });
        return render({ ...shown, flash: { error, status, form, canonicalUrl } });
      }
      if (wantsJson(c.request)) return json(200, { message: done.notice, ...(done.link ? { link: done.link.href } : {}) });
      return render({ ...shown, flash: { notice: done.notice, extra: done.extra, noticeLink: done.link, canonicalUrl } });
    });

  return (
    new Elysia({ name: "cabinet" })
      // Nothing of a body is read before the session (or the sign-in's checks) lets the request
      // through, and no body is ever parsed as JSON (./form.ts); this hook keeps Elysia's own parsers
      // off every body, answering only a declared length over the limit (413).
      .onParse(leaveBodyUnread(bodyLimit))
      .get("/cabinet/login", ({ request, server }) => signIn.page(request, server), detail("Sign-in page of a one-time link (?token=); its button, pressed by the user, redeems the link", {
        200: { description: "The sign-in page with its button naming the account, or, when signed in to another account, the page asking to switch", content: HTML },
        410: LINK_REFUSED,
        429: TOO_MANY_ATTEMPTS,
      }))
      .post(
        "/cabinet/login",
        ({ request, server }) => signIn.redeem(request, server, () => readForm(request, bodyLimit)),
        detail("Redeem a one-time sign-in link: sets the session cookie and redirects to the overview", {
          303: { description: "Signed in: the session cookie is set (any earlier session of this browser ended) and the browser goes to /cabinet/" },
          403: { description: "The post did not come from the cabinet's own sign-in page (another site's form); the link is not used", content: HTML },
          409: { description: "The browser is signed in to another account and the switch was not confirmed (the session's csrf field): the page asking to switch; the link is not used", content: HTML },
          410: LINK_REFUSED,
          415: { description: `The body is not a urlencoded form: ${NOT_A_FORM} The link is not used`, content: HTML },
          429: TOO_MANY_ATTEMPTS,
        }),
      )
      .post(
        "/cabinet/logout",
        signedIn(async (_viewer, c) => {
          await endSession(deps.db, sessionToken(c.request) as string);
          const res = signedOutPage(200, "You are signed out.");
          res.headers.set("set-cookie", sessionCookie("", 0, secureCookieFor(deps.config.cabinet.public_url, c.request)));
          return res;
        }),
        detail("End the session"),
      )
      // The tab icon, public like a stylesheet would be: the sign-in page shows it too.
      .get("/cabinet/favicon.svg", () => new Response(FAVICON_SVG, { headers: FAVICON_HEADERS }), { detail: { hide: true } })
      // The cabinet's root is /cabinet/; /cabinet, typed by hand, is sent there (query kept).
      .get("/cabinet", ({ request }) => redirectKeepingQuery(request, "/cabinet/"), { detail: { hide: true } })
      .get("/cabinet/", view(overviewPage), detail("Overview: plan, credits, spent today, 30-day usage chart"))
      .get("/cabinet/keys", view(keysPage), detail("API keys"))
      .post(
        "/cabinet/keys",
        mutation(keysPage, "/cabinet/keys", async (viewer, form) => {
          const created = await createOwnKey(deps, viewer.accountId, { label: form.get("label") ?? "", allowIps: parseAllowIps(form.get("allow_ips")) });
          if (!created.ok) return created;
          return { ok: true, notice: `Created API key ${created.key.api_key}.`, extra: created.key };
        }),
        detail("Create an API key; the page shows its secret this once"),
      )
      .post(
        "/cabinet/keys/:key/revoke",
        mutation(keysPage, "/cabinet/keys", async (viewer, _form, params) => {
          const revoked = await revokeOwnKey(deps, viewer.accountId, params.key);
          if (!revoked.ok) return revoked;
          return { ok: true, notice: `Revoked API key ${params.key}.` };
        }),
        detail("Revoke an API key of the session's account"),
      )
      .post(
        "/cabinet/keys/:key/allow-ips",
        mutation(keysPage, "/cabinet/keys", async (viewer, form, params) => {
          const outcome = await setAllowIps(deps.db, viewer.accountId, params.key, parseAllowIps(form.get("allow_ips")));
          if (!outcome.ok) return outcome;
          return { ok: true, notice: `Saved the IP allowlist of ${params.key}.` };
        }),
        detail("Replace an API key's IP allowlist (empty: any IP)"),
      )
      .get("/cabinet/addresses", view(addressesPage), detail("Watched addresses and slots"))
      .post(
        "/cabinet/addresses",
        mutation(addressesPage, "/cabinet/addresses", async (viewer, form) => {
          const added = await watchAddress(deps, viewer.accountId, { network_slug: form.get("network_slug") ?? "", address: form.get("address") ?? "" });
          if (!added.ok) return added;
          const { created, watch } = added;
          return { ok: true, notice: created ? `Watching ${watch.address} on ${watch.network_slug}.` : `Already watching ${watch.address} on ${watch.network_slug}.` };
        }),
        detail("Watch an address (same rules as POST /v1/address-watch/addresses)"),
      )
      .post(
        "/cabinet/addresses/batch",
        mutation(addressesPage, "/cabinet/addresses", async (viewer, form) => {
          const pasted = pastedAddresses(form.get("addresses") ?? "");
          if (pasted.length === 0) return invalidInput("Paste at least one address.");
          const network_slug = form.get("network_slug") ?? "";
          const added = await watchAddresses(deps, viewer.accountId, { addresses: pasted.map((address) => ({ network_slug, address })) });
          if (!added.ok) return added;
          return { ok: true, notice: pastedNotice(pasted, added.results) };
        }),
        detail("Watch a pasted list of addresses on one network (same rules as POST /v1/address-watch/addresses/batch)"),
      )
      .post(
        "/cabinet/addresses/:watch_id/delete",
        mutation(addressesPage, "/cabinet/addresses", async (viewer, _form, params) => {
          const deleted = await unwatchAddress(deps, viewer.accountId, { watch_id: params.watch_id });
          if (!deleted.ok) return deleted;
          return { ok: true, notice: "Address deleted; its slot is free." };
        }),
        detail("Stop watching an address"),
      )
      .get("/cabinet/webhook", view(webhookPage), detail("Webhook settings, egress IPs and the Test button"))
      .post(
        "/cabinet/webhook",
        mutation(webhookPage, "/cabinet/webhook", async (viewer, form) => {
          const saved = await updateWebhook(deps, viewer.accountId, webhookBodyFromForm(form));
          if (!saved.ok) return saved;
          return { ok: true, notice: "Webhook saved." };
        }),
        detail("Save the webhook (same rules as PUT /v1/address-watch/webhook, incl. the private-target guard)"),
      )
      .post(
        "/cabinet/webhook/test",
        mutation(webhookPage, "/cabinet/webhook", async (viewer, form) => {
          const queued = await queueTest({ ...deps, payments: testPayments }, viewer.accountId, "default", testBodyFromForm(form));
          if (!queued.ok) return queued;
          return { ok: true, notice: `queued ${queued.deliveryId}`, link: testDeliveryLink(queued.deliveryId) };
        }),
        detail("Queue a test delivery (event × network); answers at once"),
      )
      .post(
        "/cabinet/webhook/secret/rotate",
        mutation(webhookPage, "/cabinet/webhook", async (viewer, form) => {
          const rotated = await rotateSecret(deps, viewer.accountId, "default", rotateBodyFromForm(form));
          if (!rotated.ok) return rotated;
          const extra: ShownSecret = { secret: rotated.secret, rotated: true };
          return { ok: true, notice: "Webhook secret rotated.", extra };
        }),
        detail("Rotate the webhook secret (the rules of POST /v1/address-watch/webhook/secret/rotate); the page shows the new secret this once"),
      )
      .post(
        "/cabinet/webhook/secret/reveal",
        mutation(webhookPage, "/cabinet/webhook", async (viewer, form) => {
          if (!revealConfirmed(form)) return invalidInput(REVEAL_UNCONFIRMED);
          const current = await readEndpointSecret(deps, (await defaultEndpoint(deps.db, viewer.accountId)).id);
          const extra: ShownSecret = { secret: current.secret, rotated: false };
          return { ok: true, notice: "Webhook secret shown below.", extra };
        }),
        detail("Show the current webhook secret on the page this post renders (the form's confirm box must be ticked); no GET page shows it"),
      )
      .post(
        "/cabinet/webhook/endpoints/:endpoint_id/test",
        mutation(webhookPage, "/cabinet/webhook", async (viewer, form, params) => {
          const queued = await queueTest({ ...deps, payments: testPayments }, viewer.accountId, { endpointId: params.endpoint_id }, testBodyFromForm(form));
          if (!queued.ok) return queued;
          return { ok: true, notice: `queued ${queued.deliveryId}`, link: testDeliveryLink(queued.deliveryId) };
        }),
        detail("Queue a test delivery to one endpoint (the rules of POST /v1/webhooks/endpoints/{id}/test); answers at once"),
      )
      .post(
        "/cabinet/webhook/endpoints/:endpoint_id/secret/rotate",
        mutation(webhookPage, "/cabinet/webhook", async (viewer, form, params) => {
          const rotated = await rotateSecret(deps, viewer.accountId, { endpointId: params.endpoint_id }, rotateBodyFromForm(form));
          if (!rotated.ok) return rotated;
          const extra: ShownSecret = { secret: rotated.secret, rotated: true, endpointId: rotated.endpointId };
          return { ok: true, notice: `Secret of ${rotated.endpointId} rotated.`, extra };
        }),
        detail("Rotate one endpoint's secret (the rules of POST /v1/webhooks/endpoints/{id}/secret/rotate); the page shows the new secret this once"),
      )
      .get("/cabinet/deliveries", view(deliveriesPage), detail("Delivery log, newest first: paged (before/after a delivery id), filtered by status"))
      .get(
        "/cabinet/deliveries/:id",
        signedIn(async (viewer, c) => {
          if (!wantsJson(c.request)) return deliveryPage(ctxFor(viewer, c.request), c.params.id);
          const found = await deliveryOutcome(deps, viewer.accountId, c.params.id);
          return found.ok ? json(200, found.outcome) : json(failureStatus(found), { error: failureMessage(found) });
        }),
        detail("One delivery: its attempts, the exact body and the headers as sent, Resend; asked with Accept: application/json, its status and latest attempt's result (what the webhook Test polls)"),
      )
      .post(
        "/cabinet/deliveries/:id/resend",
        mutation((ctx) => deliveryPage(ctx, ctx.params.id), (params) => `/cabinet/deliveries/${encodeURIComponent(params.id)}`, async (viewer, _form, params) => {
          const resent = await resendAccountDelivery(deps, viewer.accountId, params.id);
          if (!resent.ok) return resent;
          return { ok: true, notice: `Re-queued ${resent.delivery.id}.` };
        }),
        detail("Re-queue a delivery that has not succeeded"),
      )
      .post(
        "/cabinet/deliveries/recover",
        mutation(deliveriesPage, "/cabinet/deliveries", async (viewer, form) => {
          const period = recoverPeriod(form.get("since"));
          if (period === null) return invalidInput(UNKNOWN_RECOVER_PERIOD);
          const since = Math.floor((deps.clock.now() - period) / 1000);
          const recovered = await recoverFailedDeliveries(deps, { accountId: viewer.accountId, endpoints: "all" }, { since });
          if (!recovered.ok) return recovered;
          const { requeued, more } = recovered;
          const notice = `Re-queued ${requeued} failed ${requeued === 1 ? "delivery" : "deliveries"}.${more ? " More remain: press Recover failed again." : ""}`;
          return { ok: true, notice };
        }),
        detail("Re-queue the account's failed deliveries (every endpoint's) of the last hour, day or week (the rules of POST /v1/address-watch/webhook/recover)"),
      )
      .get("/cabinet/events", view(eventsPage), detail("Events, newest first: paged (before/after an event id), filtered by type, network, address, tx_hash"))
      .get(
        "/cabinet/events/:id",
        signedIn((viewer, c) => eventPage(ctxFor(viewer, c.request), c.params.id)),
        detail("One event: its body as listed and delivered, and its deliveries"),
      )
      .get("/cabinet/payments", view(paymentsPage), detail("Payment orders"))
      .get(
        "/cabinet/payments/:payment_id",
        signedIn((viewer, c) => paymentPage(ctxFor(viewer, c.request), c.params.payment_id)),
        detail("One payment order and its lifecycle timeline"),
      )
      // Unknown pages and form targets; other methods get the app's JSON 404 or 405.
      .get("/cabinet/*", () => notFoundPage(), { detail: { hide: true } })
      .post("/cabinet/*", () => notFoundPage(), { detail: { hide: true } })
  );
}
