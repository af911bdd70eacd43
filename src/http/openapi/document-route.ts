import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import type { openapiDocumentation } from "./document.ts";
import { finishDocument } from "./finish.ts";

/** The document's path; the reference page (./page-route.ts) reads it too. */
export const DOCUMENT_PATH = "/openapi/json";

/**
 * GET /openapi/json: the document the OpenAPI plugin builds from the routes, finished with
 * operation ids and examples (./finish.ts). The cabinet's pages are HTML forms for a browser, not
 * API operations, so /cabinet is left out.
 */
export function openapiDocumentRoute(documentation: ReturnType<typeof openapiDocumentation>) {
  // The plugin keeps its document until routes are added; finish each one it builds once.
  const finished = new WeakMap<object, unknown>();
  return new Elysia({ name: "openapi-document" })
    .onAfterHandle(({ route, responseValue }) => {
      if (route !== DOCUMENT_PATH || typeof responseValue !== "object" || responseValue === null) return;
      let done = finished.get(responseValue);
      if (done === undefined) {
        done = finishDocument(responseValue as { paths?: Record<string, unknown> });
        finished.set(responseValue, done);
      }
      return done;
    })
    .use(openapi({ path: "/openapi", specPath: DOCUMENT_PATH, provider: null, documentation, exclude: { paths: [/^\/cabinet(\/|$)/] } }));
}
