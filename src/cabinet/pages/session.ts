import { html } from "../html.ts";
import { page } from "../layout.ts";

/** The sign-in page a link opens: one button (pressed by the page's script at once) that redeems the link. */
export function signInPage(token: string, accountName: string): Response {
  return page({
    title: "Sign in",
    body: html`<section><p>This one-time link signs you in to the chainwatch cabinet of account <strong>${accountName}</strong>.</p>
<form method="post" action="/cabinet/login" data-autosubmit><input type="hidden" name="token" value="${token}">
<button type="submit">Sign in as ${accountName}</button></form></section>`,
  });
}

/** A link that is unknown, used or expired: it never signs in again. */
export function linkRefusedPage(): Response {
  return page({
    title: "Sign-in link not valid",
    status: 410,
    error: "This sign-in link is invalid, already used or expired.",
    body: html`<p>Each link signs in once. Ask your operator for a new one (<code>chainwatch cabinet link --account NAME</code>).</p>`,
  });
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
