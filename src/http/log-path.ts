import { requestPath } from "../net/request-target.ts";

/** What stands in a logged path for a part that may be a credential. */
export const REDACTED = "***";

// An API key's shape (a UUID), wherever a client put it: `/rpc/eth/<key>/x`, `/rpcs/eth/<key>`.
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * A request's path as logs may show it: the path form of /rpc carries the API key
 * (`/rpc/{network}/{api_key}`), so whatever follows `/rpc/<network>/` is replaced, and so is
 * anything shaped like a key elsewhere (a mistyped route is logged too). The query is never part
 * of it; a target that is no URL (a CONNECT's `host:port`) is logged as requestPath reads it.
 * Everything that logs a request path goes through here.
 */
export function loggablePath(request: Request): string {
  let path = requestPath(request);
  const segments = path.split("/");
  // ["", "rpc", "<network>", "<api_key>", …]: keep the route and the network, hide the rest.
  const rpc = segments.findIndex((s) => s.toLowerCase() === "rpc");
  if (rpc >= 0 && segments.length > rpc + 2) path = [...segments.slice(0, rpc + 2), REDACTED].join("/");
  return path.replace(UUID, REDACTED);
}
