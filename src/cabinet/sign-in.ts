import type { Db } from "../db/database.ts";
import type { ClientIpResolver } from "../net/client-ip.ts";
import { requestQuery, requestUrl } from "../net/request-target.ts";
import type { Clock } from "../lib/clock.ts";
import { type Failure, fail, type Result } from "../lib/error-codes.ts";
import { secureCookieFor, sessionCookie, sessionToken } from "./cookie.ts";
import { SECURITY_HEADERS } from "./layout.ts";
import type { PostedForm } from "./form.ts";
import { type OtherSession, signInPage, signInRefusedPage } from "./pages/session.ts";
import { createSignInThrottle, type SignInThrottle, type SignInThrottled, signInThrottled, throttleKey } from "./sign-in-throttle.ts";
import { csrfMatches, csrfTokenFor, endSession, findSession, peekSignInLink, redeemSignInLink, SESSION_TTL_MS } from "./sessions.ts";

export type SignInDeps = {
  db: Db;
  clock: Clock;
  clientIp: ClientIpResolver;
  /** `[cabinet] public_url`: its origin is this site too, and https there makes cookies Secure. */
  publicUrl: string;
  throttle?: SignInThrottle;
};

type Server = Parameters<ClientIpResolver>[1];

/**
 * Opening and redeeming a one-time sign-in link (docs/cabinet.md). The link's page only
 * shows a button; the post that redeems it must come from that page (not another site), from a
 * client that has not failed too many links lately, and, when the browser is signed in to
 * another account, must carry that session's CSRF token: the switch is shown and confirmed,
 * never done silently. A successful sign-in ends the session it replaces.
 */
export function createSignIn(deps: SignInDeps) {
  const sessionDeps = { db: deps.db, clock: deps.clock };
  const throttle = deps.throttle ?? createSignInThrottle({ clock: deps.clock });
  const publicOrigin = URL.parse(deps.publicUrl)?.origin ?? null;

  /** The browser's live session, with its token, if it sent one. */
  const currentSession = async (request: Request) => {
    const token = sessionToken(request);
    const session = token ? await findSession(sessionDeps, token) : null;
    return token && session ? { token, ...session } : null;
  };

  /**
   * Whether a post came from this site's own page. Browsers say so in Sec-Fetch-Site; one that
   * does not still sends Origin with a form post. A client sending neither is no browser a
   * page of another site could drive.
   */
  const fromOwnPage = (request: Request): boolean => {
    const site = request.headers.get("sec-fetch-site");
    if (site !== null) return site === "same-origin";
    const origin = request.headers.get("origin");
    return origin === null || origin === requestUrl(request)?.origin || origin === publicOrigin;
  };

  /** The refusal of a client that must wait out the throttle, else null. */
  const waiting = (client: string): SignInThrottled | null => {
    const wait = throttle.waitMs(client);
    return wait > 0 ? signInThrottled(wait) : null;
  };

  /**
   * Looks the link up unless the client must wait; a link that opens nothing counts against it. A
   * valid link of a disabled account is refused without being used (it works once the account is
   * enabled, until it expires) and without counting against the client.
   */
  const lookUp = async (
    request: Request,
    server: Server,
    token: string,
  ): Promise<Result<{ link: { accountId: string; accountName: string }; client: string }, Failure<"SIGN_IN_LINK_INVALID" | "ACCOUNT_DISABLED"> | SignInThrottled>> => {
    const client = throttleKey(deps.clientIp(request, server));
    const refused = waiting(client);
    if (refused) return refused;
    const link = await peekSignInLink(sessionDeps, token);
    if (!link) {
      throttle.failed(client);
      return fail("SIGN_IN_LINK_INVALID");
    }
    if (link.disabled) return fail("ACCOUNT_DISABLED");
    return { ok: true, link, client };
  };

  const otherSession = (current: { token: string; accountId: string; accountName: string } | null, accountId: string): OtherSession | undefined =>
    current && current.accountId !== accountId ? { accountName: current.accountName, csrf: csrfTokenFor(current.token) } : undefined;

  return {
    /** GET /cabinet/login?token=: the page with the button, or why there is none. */
    async page(request: Request, server: Server): Promise<Response> {
      const token = requestQuery(request).get("token") ?? "";
      if (token === "") return signInRefusedPage(fail("SIGN_IN_LINK_INVALID"));
      const found = await lookUp(request, server, token);
      if (!found.ok) return signInRefusedPage(found);
      return signInPage(token, found.link.accountName, otherSession(await currentSession(request), found.link.accountId));
    },

    /**
     * POST /cabinet/login: redeems the link and sets the session cookie (303 to the overview). The
     * body holds the link's token, so it is read (by `readForm`) only once the post is known to
     * come from the sign-in page and its client is not waiting out the throttle.
     */
    async redeem(request: Request, server: Server, readForm: () => Promise<PostedForm>): Promise<Response> {
      if (!fromOwnPage(request)) return signInRefusedPage(fail("SIGN_IN_CROSS_SITE"));
      const refused = waiting(throttleKey(deps.clientIp(request, server)));
      if (refused) return signInRefusedPage(refused);
      const posted = await readForm();
      if (!posted.ok) return signInRefusedPage(posted);
      const { form } = posted;
      const token = form.get("token") ?? "";
      const found = await lookUp(request, server, token);
      if (!found.ok) return signInRefusedPage(found);
      const current = await currentSession(request);
      const other = otherSession(current, found.link.accountId);
      // Signed in elsewhere and not confirmed on the switch page: ask, and use nothing up.
      if (current && other && !csrfMatches(current.token, form.get("csrf"))) return signInPage(token, found.link.accountName, other, 409);
      const redeemed = await redeemSignInLink(sessionDeps, token);
      if (!redeemed.ok) {
        // Used or expired between the look-up and now (another tab): the same answer as before.
        throttle.failed(found.client);
        return signInRefusedPage(redeemed);
      }
      if (current) await endSession(deps.db, current.token);
      const cookie = sessionCookie(redeemed.sessionToken, SESSION_TTL_MS / 1000, secureCookieFor(deps.publicUrl, request));
      return new Response(null, { status: 303, headers: { location: "/cabinet/", "set-cookie": cookie, ...SECURITY_HEADERS } });
    },
  };
}
