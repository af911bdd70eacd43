import { jsonNestsDeeperThan } from "../../lib/json-depth.ts";
import { NO_NUL, nulPathInJson } from "../../lib/nul-text.ts";
import { badRequest, invalidJson, unsupportedMediaType } from "../errors.ts";

/**
 * The JSON value of a body that passed its route's guard (../../net/unread-body.ts): 415 for a
 * body declared as anything but JSON (`text/plain`, a form; no Content-Type at all counts as JSON),
 * 400 `Invalid JSON body.` for one that nests deeper than MAX_JSON_DEPTH (../../lib/json-depth.ts:
 * scanned before JSON.parse builds a single level) or does not parse, 400 naming where for a NUL
 * character in a string. An empty or blank body is `{}`.
 */
export function parseJsonBody(request: Request, raw: string): unknown {
  if (raw !== "" && !isJsonMediaType(request.headers.get("content-type"))) throw unsupportedMediaType();
  if (raw.trim() === "") return {};
  if (jsonNestsDeeperThan(raw)) throw invalidJson();
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalidJson();
  }
  const nulAt = nulPathInJson(raw, parsed);
  if (nulAt !== null) throw badRequest(`${nulAt} ${NO_NUL}`);
  return parsed;
}

/** `application/json`, in any case, with or without parameters (`; charset=utf-8`); absent counts. */
function isJsonMediaType(header: string | null): boolean {
  if (header === null) return true;
  return header.split(";", 1)[0]!.trim().toLowerCase() === "application/json";
}
