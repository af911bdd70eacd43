import { fail, type Failure, invalidInput, type Result } from "../lib/error-codes.ts";
import { NO_NUL } from "../lib/nul-text.ts";
import { readBody } from "../net/unread-body.ts";

/** What a browser posts a plain `<form>` as, and what the cabinet's script posts too: the one type a form may have. */
const FORM_TYPE = "application/x-www-form-urlencoded";
export const NOT_A_FORM = `Content-Type must be ${FORM_TYPE}.`;

export type PostedForm = Result<{ form: URLSearchParams }, Failure>;

/**
 * A form post's fields, read only once the session (or, for the sign-in, the cross-site check and
 * the throttle) has let the request through (docs/cabinet.md). The cabinet parses no JSON: a body
 * of any type but a urlencoded form is refused (415) without a byte of it read. A body past
 * `limit` throws the 413; a request without a body is an empty form. Every value is kept (a
 * repeated key is a list of ticked networks); a NUL character in a key or value is refused,
 * naming the field (../lib/nul-text.ts).
 */
export async function readForm(request: Request, limit: number): Promise<PostedForm> {
  if (!hasBody(request)) return { ok: true, form: new URLSearchParams() };
  if (!isForm(request.headers.get("content-type"))) return fail("UNSUPPORTED_MEDIA_TYPE", NOT_A_FORM);
  const form = new URLSearchParams(await readBody(request, limit));
  for (const [key, value] of form) if (key.includes("\u0000") || value.includes("\u0000")) return invalidInput(`${key} ${NO_NUL}`);
  return { ok: true, form };
}

/** Bun hands a request whose body is empty over with none; a declared length of 0 says the same. */
function hasBody(request: Request): boolean {
  return request.body !== null && request.headers.get("content-length") !== "0";
}

/** The form type, in any case, with or without parameters (`; charset=UTF-8`). */
function isForm(header: string | null): boolean {
  return header !== null && header.split(";", 1)[0]!.trim().toLowerCase() === FORM_TYPE;
}
