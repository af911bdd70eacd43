import { Elysia, t } from "elysia";
import { accountOverview } from "../../accounts/account-view.ts";
import { usageReport } from "../../billing/usage-report.ts";
import { listNotices } from "../../notices/notices.ts";
import { networkService } from "../../follow/network-service.ts";
import { rawQuery } from "../../net/request-target.ts";
import { watchSummary } from "../../accounts/watch-summary.ts";
import { type AppDeps, signatureDeps } from "../deps.ts";
import { fromFailure } from "../errors.ts";
import { signature } from "../plugins/signature.ts";
import { responses } from "../openapi/responses.ts";

/** GET /v1/account, /v1/account/usage, /v1/account/notices, /v1/endpoints and /v1/address-watch/account. */
export function accountRoutes(deps: AppDeps) {
  return new Elysia()
    .use(signature(signatureDeps(deps)))
    .get("/v1/account", ({ auth }) => accountOverview(deps, auth.accountId), {
      detail: {
        summary: "Plan and usage snapshot",
        description:
          "`plan.rpc_rps` is the plan's limit on the JSON-RPC endpoint (POST /rpc/{network}), in calls per second; it does not limit this signed API, which allows `rate_limit.per_key_rps` requests per second per key.",
        tags: ["account"],
        responses: responses({ 200: ["Account", "The account"] }),
      },
    })
    .get(
      "/v1/account/usage",
      async ({ auth, request }) => {
        const report = await usageReport(deps, auth.accountId, rawQuery(request));
        if (!report.ok) throw fromFailure(report);
        return { days: report.days, series: report.series };
      },
      {
        query: t.Object({ days: t.Optional(t.String({ description: "1..90, default 30" })) }),
        detail: { summary: "Daily usage series, exactly `days` UTC days, today last", tags: ["account"], responses: responses({ 200: ["Usage", "The series"] }, [[400, "days must be an integer from 1 to 90"]]) },
      },
    )
    .get(
      "/v1/account/notices",
      async ({ auth, request }) => {
        const page = await listNotices(deps, auth.accountId, rawQuery(request));
        if (!page.ok) throw fromFailure(page);
        return { notices: page.notices, next_after: page.next_after };
      },
      {
        query: t.Object({
          limit: t.Optional(t.String({ description: "1..100, default 20" })),
          after: t.Optional(t.String({ description: "The last id of the previous page" })),
        }),
        detail: {
          summary: "Notices for the account holder, newest first: a webhook switched off after a run of failures, a delivery that used up its attempts, deliveries held because the credits cannot pay; resolved_at once the cause ended",
          tags: ["account"],
          responses: responses({ 200: ["NoticeList", "A page of notices"] }, [[400, "limit must be an integer from 1 to 100, or an unknown or empty cursor"]]),
        },
      },
    )
    .get(
      "/v1/endpoints",
      () => ({
        endpoints: Object.entries(deps.config.networks).map(([network, n]) => {
          const { blocks_from, rpc } = networkService(network, n);
          return { network, family: n.family, decimals: n.decimals, confirmations: n.confirmations, blocks_from, rpc };
        }),
      }),
      {
        detail: {
          summary: "Networks this daemon serves",
          description:
            "`blocks_from` says where a network's blocks come from: `follower`, a built-in follower reads its node; `ingest`, only what is posted to `/ingest/blocks` or fed by `chainwatch ingest` (a watch there sees nothing until something is). `rpc`: whether `POST /rpc/{network}` forwards calls for it.",
          tags: ["account"],
          responses: responses({ 200: ["Endpoints", "The networks"] }),
        },
      },
    )
    .get("/v1/address-watch/account", ({ auth }) => watchSummary(deps, auth.accountId), {
      detail: { summary: "Address-watch slots, webhook state and event count", tags: ["address-watch"], responses: responses({ 200: ["AddressWatchAccount", "Slots, webhook and event count"] }) },
    });
}
