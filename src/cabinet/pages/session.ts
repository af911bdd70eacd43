import type { Failure } from "../../lib/error-codes.ts";
import { html } from "../../lib/html.ts";
import { FAILURES, failureMessage, failureStatus } from "../../lib/failures.ts";
import { page } from "../layout.ts";
import type { SignInThrottled } from "../sign-in-throttle.ts";

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

/**
 * Why a sign-in link opened or posted signs nothing in, as a page with the failure's status and
 * sentence: a link unknown, used or expired (it never signs in again), a client waiting out the
 * throttle (with Retry-After), or a post the sign-in page did not send (another site's form, a body
 * that is no form): the link has not been used.
 */
export function signInRefusedPage(failure: Failure | SignInThrottled): Response {
  const [status, error] = [failureStatus(failure), failureMessage(failure)];
  if (failure.code === "SIGN_IN_LINK_INVALID") {
    return page({
      title: "Sign-in link not valid",
      status,
      error,
      body: html`<p>Each link signs in once. Ask your operator for a new one (<code>chainwatch cabinet link --account NAME</code>).</p>`,
    });
  }
  if (failure.code === "ACCOUNT_DISABLED") return accountDisabledPage();
  if ("retryAfterSeconds" in failure) {
    const res = page({
      title: "Too many sign-in attempts",
      status,
      error,
      body: html`<p>After several unknown, used or expired links, sign-in from the same address pauses for a minute. A valid link keeps working afterwards until it expires; ask your operator for a new one if it has (<code>chainwatch cabinet link --account NAME</code>).</p>`,
    });
    res.headers.set("retry-after", String(failure.retryAfterSeconds));
    return res;
  }
  return page({
    title: "Sign-in refused",
    status,
    error,
    body: html`<p>Open your sign-in link directly in the browser and press its button. The link has not been used.</p>`,
  });
}

/** Every cabinet page of a session whose account an operator disabled (ACCOUNT_DISABLED's status); the session is kept. */
export function accountDisabledPage(): Response {
  return page({
    title: "Account disabled",
    status: FAILURES.ACCOUNT_DISABLED.status,
    error: FAILURES.ACCOUNT_DISABLED.message,
    body: html`<p>Your operator has disabled this account: its API keys and this cabinet are refused until they enable it again. Its watched addresses and events are kept, and webhooks wait until then. Ask your operator why.</p>`,
  });
}

/** Any cabinet page without a live session (NOT_SIGNED_IN's status), or the page after signing out. */
export function signedOutPage(status = FAILURES.NOT_SIGNED_IN.status, notice?: string): Response {
  return page({
    title: status === 401 ? "Not signed in" : "Signed out",
    status,
    notice,
    body: html`<p>The cabinet opens with a one-time sign-in link from your operator (<code>chainwatch cabinet link --account NAME</code>). A session lasts 7 days.</p>`,
  });
}

/** A page (or form target) that does not exist. */
export function notFoundPage(): Response {
  const { status, message } = FAILURES.NOT_FOUND;
  return page({ title: "Not found", status, error: message, body: html`<p><a href="/cabinet/">Back to the cabinet</a></p>` });
}
