import { Elysia } from "elysia";
import { readLimitedText } from "../../net/read-body.ts";
import { NO_NUL, nulPathInJson } from "../../lib/nul-text.ts";
import { badRequest, invalidJson, tooLarge, unsupportedMediaType } from "../errors.ts";

/** Marks a body that was not valid JSON; the route learns of it only after authentication. */
export const INVALID_JSON = Symbol("invalid-json");
/** Marks a body with a NUL character in a string (../../lib/nul-text.ts), holding where; reported like INVALID_JSON. */
export const NUL_TEXT = Symbol("nul-text");

/** The raw body text kept beside the parsed one, for signature checks over the bytes as sent. */
export type RawBodyContext = { rawBody?: string };

/**
 * A parse handler that reads the body once, as text, refusing more than `limit` bytes (413), keeps
 * the raw text on the context and hands Elysia the parsed JSON. Bad JSON does not throw here:
 * authentication runs first (a stranger learns nothing about the route), then `requireJson`
 * reports it. Register it with `{ as: "scoped" }` on the instance the route module `.use()`s:
 * a scoped hook climbs one level only, so nesting it one plugin deeper never reaches the routes.
 */
export function rawJsonParser(limit: number) {
  return async (ctx: { request: Request }) => {
    const text = await readLimitedText(ctx.request, limit);
    if (text === null) throw tooLarge(limit);
    (ctx as RawBodyContext).rawBody = text;
    if (text.trim() === "") return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { [INVALID_JSON]: true };
    }
    const nulAt = nulPathInJson(text, parsed);
    return nulAt === null ? parsed : { [NUL_TEXT]: nulAt };
  };
}

/** A plugin giving the routes of the module that `.use()`s it the raw-body parser. */
export function rawJsonBody(limit: number) {
  return new Elysia().onParse({ as: "scoped" }, rawJsonParser(limit));
}

/**
 * Throws the 415 for a body declared as anything but JSON (`text/plain`, a form), then the 400
 * for a body that did not parse or holds a NUL character (naming where). A body sent with no
 * Content-Type at all is taken as JSON.
 * Called after authentication, so a stranger learns nothing about the route.
 */
export function requireJson(request: Request, raw: string | undefined, body: unknown): void {
  if (raw && !isJsonMediaType(request.headers.get("content-type"))) throw unsupportedMediaType();
  if (typeof body !== "object" || body === null) return;
  if (INVALID_JSON in body) throw invalidJson();
  if (NUL_TEXT in body) throw badRequest(`${String(body[NUL_TEXT])} ${NO_NUL}`);
}

/** `application/json`, in any case, with or without parameters (`; charset=utf-8`); absent counts. */
function isJsonMediaType(header: string | null): boolean {
  if (header === null) return true;
  return header.split(";", 1)[0]!.trim().toLowerCase() === "application/json";
}
