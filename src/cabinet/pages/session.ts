import { html } from "../../lib/html.ts";
import { FAILURES } from "../../lib/failures.ts";
import { page } from "../layout.ts";

/** The session this browser already has, when a link would replace it with another account's. */
export type OtherSession = { accountName: string; csrf: string };

/**
 * The sign-in page a link opens: one form whose button names the account and redeems the link.
 * Nothing submits it but a press of that button: a page of another site that sends a visitor to
 * its own owner's link (login CSRF) gets no further than this page. When the browser is signed in
 * to another account, the page says so and the button says what pressing it does; the form then
 * carries that session's CSRF token, which the post requires before it replaces the session.
 */
export function signInPage(token: string, accountName: string, other?: OtherSession, status = 200): Response {
  if (other) {
    return page({
      title: "Switch account?",
      status,
      body: html`<section><p>You are signed in as <strong>${other.accountName}</strong>. Continue as <strong>${accountName}</strong>?</p>
<p>This one-time link signs this browser in to account <strong>${accountName}</strong> and signs <strong>${other.accountName}</strong> out.</p>
<form method="post" action="/cabinet/login"><input type="hidden" name="token" value="${token}"><input type="hidden" name="csrf" value="${other.csrf}">
<button type="submit">Sign out of ${other.accountName} and continue as ${accountName}</button></form>
<p><a href="/cabinet/">Stay signed in as ${other.accountName}</a></p></section>`,
    });
  }
  return page({
    title: "Sign in",
    status,
    body: html`<section><p>This one-time link signs you in to the chainwatch cabinet of account <strong>${accountName}</strong>.</p>
<form method="post" action="/cabinet/login"><input type="hidden" name="token" value="${token}">
<button type="submit">Sign in as ${accountName}</button></form>
<p class="muted">If you did not ask for a sign-in link to account ${accountName}, close this page: whoever owns that account would see what you do in it.</p></section>`,
  });
}

/** A link that is unknown, used or expired: it never signs in again. */
export function linkRefusedPage(): Response {
  return page({
    title: "Sign-in link not valid",
    status: FAILURES.SIGN_IN_LINK_INVALID.status,
    error: FAILURES.SIGN_IN_LINK_INVALID.message,
    body: html`<p>Each link signs in once. Ask your operator for a new one (<code>chainwatch cabinet link --account NAME</code>).</p>`,
  });
}

/** A sign-in post that did not come from the sign-in page itself (another site's form). */
export function crossSiteRefusedPage(): Response {
  return page({
    title: "Sign-in refused",
    status: 403,
    error: "A sign-in must be confirmed on the sign-in page of this cabinet.",
    body: html`<p>Open your sign-in link directly in the browser and press its button. The link has not been used.</p>`,
  });
}

/** A sign-in post whose body is no form the sign-in page sends (another type, a NUL character): the link has not been used. */
export function postRefusedPage(status: number, error: string): Response {
  return page({
    title: "Sign-in refused",
    status,
    error,
    body: html`<p>Open your sign-in link directly in the browser and press its button. The link has not been used.</p>`,
  });
}

/** A client that failed too many sign-ins lately: it waits `waitMs` before the next attempt. */
export function tooManyAttemptsPage(waitMs: number): Response {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  const res = page({
    title: "Too many sign-in attempts",
    status: 429,
    error: `Too many sign-in links that did not work came from your address. Try again in ${seconds} ${seconds === 1 ? "second" : "seconds"}.`,
    body: html`<p>After several unknown, used or expired links, sign-in from the same address pauses for a minute. A valid link keeps working afterwards until it expires; ask your operator for a new one if it has (<code>chainwatch cabinet link --account NAME</code>).</p>`,
  });
  res.headers.set("retry-after", String(seconds));
  return res;
}

/** Any cabinet page without a live session. */
export function signedOutPage(status = 401, notice?: string): Response {
  return page({
    title: status === 401 ? "Not signed in" : "Signed out",
    status,
    notice,
    body: html`<p>The cabinet opens with a one-time sign-in link from your operator (<code>chainwatch cabinet link --account NAME</code>). A session lasts 7 days.</p>`,
  });
}

/** A page (or form target) that does not exist. */
export function notFoundPage(): Response {
  return page({ title: "Not found", status: 404, error: "Not found.", body: html`<p><a href="/cabinet/">Back to the cabinet</a></p>` });
}
