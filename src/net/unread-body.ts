import { bodyTooLarge, FailureError, fromFailure } from "../lib/failures.ts";
import { declaresMoreThan, readLimitedText } from "./read-body.ts";

// A request body is read only once the request has passed every check that does not need it (the
// signed API's key, timestamp and signature headers; the ingest token; the cabinet's session or
// sign-in throttle), and parsed only once it has passed them all. Elysia's own parsers would read
// and parse it (JSON.parse of whatever a stranger sends: a 1 MB `[[[…]]]` costs tens of MB)
// before any of its guards run, so the routes that take a body keep them off it with the parse
// hook below and read the body themselves, through readBody, when their guard allows.

/** What a route's `body` holds until its guard reads it: nothing of the body has been read. */
export const UNREAD_BODY: unique symbol = Symbol("unread-body");

/**
 * An Elysia parse hook that reads nothing: a value from a parse hook is what the route gets as
 * `body`, and Elysia then parses nothing itself. A body declared (Content-Length) over `limit` is
 * refused at once with 413: knowing that needs no byte of it.
 */
export function leaveBodyUnread(limit: number) {
  return ({ request }: { request: Request }): typeof UNREAD_BODY => {
    if (declaresMoreThan(request, limit)) throw tooLarge(limit);
    return UNREAD_BODY;
  };
}

/** The body as sent, as text ("" for none); throws the 413 once it passes `limit` bytes. */
export async function readBody(request: Request, limit: number): Promise<string> {
  const text = await readLimitedText(request, limit);
  if (text === null) throw tooLarge(limit);
  return text;
}

const tooLarge = (limit: number): FailureError => fromFailure(bodyTooLarge(limit));
