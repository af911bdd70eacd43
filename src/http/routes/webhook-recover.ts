import { Elysia } from "elysia";
import { recoverEndpoint } from "../../webhooks/recover.ts";
import { type AppDeps, signatureDeps } from "../deps.ts";
import { fromFailure } from "../errors.ts";
import { signature } from "../plugins/signature.ts";
import { jsonRequest, responses } from "../openapi/responses.ts";

/** POST /v1/address-watch/webhook/recover: re-queues the failed deliveries of a time range to the default endpoint and the payments URL. */
export function webhookRecoverRoutes(deps: AppDeps) {
  return new Elysia().use(signature(signatureDeps(deps))).post(
    "/v1/address-watch/webhook/recover",
    async ({ auth, body }) => {
      const recovered = await recoverEndpoint(deps, auth.accountId, "default", body);
      if (!recovered.ok) throw fromFailure(recovered);
      return { requeued: recovered.requeued, more: recovered.more };
    },
    {
      detail: {
        summary: "Re-queue the failed deliveries queued in [since, until), oldest first, with a fresh retry schedule",
        tags: ["address-watch"],
        requestBody: jsonRequest("RecoverRequest"),
        responses: responses({ 200: ["RecoverResult", "Re-queued; `more` is true when failed deliveries remain in the range (call again)"] }, [
          [400, "A field error, since in the future, or until not after since"],
          413,
          415,
        ]),
      },
    },
  );
}
