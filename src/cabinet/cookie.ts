/** The session cookie: scoped to /cabinet, never readable by script, never sent cross-site. */
export const SESSION_COOKIE = "chainwatch_session";

/** The session token from the Cookie header, if any. */
export function sessionToken(request: Request): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === SESSION_COOKIE) return value.join("=") || null;
  }
  return null;
}

/** The Set-Cookie value of a session (an empty value with max-age 0 clears it). */
export function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/cabinet; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? "; Secure" : ""}`;
}

/** Secure cookies behind an https `public_url`, or on a request that came over https itself. */
export function secureCookieFor(publicUrl: string, request: Request): boolean {
  return publicUrl.startsWith("https:") || request.url.startsWith("https:");
}
