import { Elysia } from "elysia";
import { cabinetRoutes } from "./cabinet/routes.ts";
import type { CheckoutDeps } from "./checkout/deps.ts";
import { checkoutRoutes } from "./checkout/routes.ts";
import { createApp } from "./http/app.ts";
import type { AppDeps } from "./http/deps.ts";

/** Everything the server's surfaces need: the API's dependencies and the checkout pages' live updates. */
export type ServerDeps = AppDeps & CheckoutDeps;

/**
 * The daemon's HTTP server: the signed API with the cabinet (when `[cabinet] enabled`) and the
 * payers' checkout pages mounted beside it. None knows the others; all call the same use cases.
 */
export function createServer(deps: ServerDeps) {
  const beside = new Elysia({ name: "beside" }).use(checkoutRoutes(deps));
  return createApp(deps, deps.config.cabinet.enabled ? beside.use(cabinetRoutes(deps)) : beside);
}
