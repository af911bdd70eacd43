import { createSignInLink } from "../../src/cabinet/sessions.ts";
import type { TestDaemon } from "../support/harness.ts";

/** A signed-in cabinet user driven with fetch: the session cookie and the CSRF token its pages carry. */
export type CabinetUser = {
  cookie: string;
  csrf: string;
  get(path: string): Promise<Response>;
  /** Posts a form; `csrf: false` leaves the token out. */
  post(path: string, fields?: Record<string, string | string[]>, opts?: { csrf?: boolean; accept?: string }): Promise<Response>;
};

/** A one-time sign-in URL for an account, as `chainwatch cabinet link` makes it. */
export async function signInLink(td: TestDaemon, accountId: string, ttlMs = 15 * 60_000): Promise<string> {
  const { token } = await createSignInLink(td.ctx, accountId, ttlMs);
  return `${td.url}/cabinet/login?token=${token}`;
}

/** Redeems a fresh link with a form post (what the sign-in page's button does) and reads the CSRF token from a page. */
export async function signIn(td: TestDaemon, accountId: string): Promise<CabinetUser> {
  const token = new URL(await signInLink(td, accountId)).searchParams.get("token") as string;
  const res = await fetch(`${td.url}/cabinet/login`, { method: "POST", body: new URLSearchParams({ token }), redirect: "manual" });
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  const cookie = (res.headers.get("set-cookie") as string).split(";")[0];
  const page = await (await fetch(`${td.url}/cabinet/`, { headers: { cookie } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] as string;
  return {
    cookie,
    csrf,
    get: (path) => fetch(`${td.url}${path}`, { headers: { cookie }, redirect: "manual" }),
    post(path, fields = {}, opts = {}) {
      const body = new URLSearchParams();
      for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
      if (opts.csrf !== false) body.set("csrf", csrf);
      return fetch(`${td.url}${path}`, {
        method: "POST",
        body,
        redirect: "manual",
        headers: { cookie, ...(opts.accept ? { accept: opts.accept } : {}) },
      });
    },
  };
}

/** The text of the page's error banner (the API's message), if any. */
export function alertOf(page: string): string | null {
  return /role="alert">([^<]*)</.exec(page)?.[1] ?? null;
}

/** The text of the page's success banner, if any. */
export function noticeOf(page: string): string | null {
  return /role="status">([^<]*)</.exec(page)?.[1] ?? null;
}
