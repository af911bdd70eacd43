import { defineCommand } from "citty";
import { createSignInLink, DEFAULT_LINK_TTL_MS, parseTtl, signInUrl } from "../../src/cabinet/sessions.ts";
import { rfc3339 } from "../../src/lib/time.ts";
import { withContext } from "../context.ts";
import { CommandError, type Globals, UsageError } from "../globals.ts";
import { emit } from "../output.ts";
import { globalArgs, requireAccount } from "./common.ts";

export function cabinetCommand(g: Globals) {
  return defineCommand({
    meta: { name: "cabinet", description: "The account holders' web cabinet" },
    subCommands: {
      link: defineCommand({
        meta: { name: "link", description: "Print a one-time sign-in URL for an account's cabinet" },
        args: {
          ...globalArgs,
          account: { type: "string", description: "Account name or id", required: true },
          ttl: { type: "string", description: "How long the link stays valid: 30s, 15m, 2h, 7d (default 15m, at most 7d)" },
        },
        run: ({ args }) => {
          const ttlMs = args.ttl === undefined ? DEFAULT_LINK_TTL_MS : parseTtl(String(args.ttl));
          if (ttlMs === null) throw new UsageError("--ttl must be a duration such as 30s, 15m, 2h or 7d, at most 7d");
          return withContext(g, async (ctx) => {
            if (!ctx.config.cabinet.enabled) throw new CommandError("the cabinet is disabled ([cabinet] enabled = false)");
            const account = await requireAccount(ctx.db, String(args.account));
            const link = await createSignInLink(ctx, account.id, ttlMs);
            const url = signInUrl(ctx.config, link.token);
            emit(g, { url, account_id: account.id, expires_at: rfc3339(link.expiresAt) }, () => `${url}\n\nOne sign-in, valid until ${rfc3339(link.expiresAt)}.`);
          });
        },
      }),
    },
  });
}
