import { cabinetRoutes } from "./cabinet/routes.ts";
import { createApp } from "./http/app.ts";
import type { AppDeps } from "./http/deps.ts";

/**
 * The daemon's HTTP server: the signed API with the cabinet mounted beside it when
 * `[cabinet] enabled`. Neither knows the other; both call the same use cases.
 */
export function createServer(deps: AppDeps) {
  return createApp(deps, deps.config.cabinet.enabled ? cabinetRoutes(deps) : undefined);
}
