import { type AnyElysia, Elysia } from "elysia";
import { REFERENCE_PAGE_HEADERS, renderReferencePage } from "./reference-page.ts";

/**
 * GET /openapi: the reference page, rendered once from the app's own /openapi/json (asked of the
 * app in-process, so the page and the document are the same document) and kept.
 */
export function referencePage(app: AnyElysia) {
  let page: string | undefined;
  return new Elysia().get(
    "/openapi",
    async () => {
      if (page === undefined) {
        const doc = (await (await app.handle(new Request("http://localhost/openapi/json"))).json()) as Record<string, unknown>;
        page = renderReferencePage(doc);
      }
      return new Response(page, { headers: REFERENCE_PAGE_HEADERS });
    },
    { detail: { hide: true } },
  );
}
