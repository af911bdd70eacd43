import { defineCommand } from "citty";
import { createApiKey, invalidAllowIp, listApiKeys, MAX_KEY_LABEL, revokeKey } from "../../src/accounts/api-keys.ts";
import { failureMessage } from "../../src/lib/failures.ts";
import { withContext } from "../context.ts";
import { CommandError, type Globals, repeated, UsageError } from "../globals.ts";
import { emit, fields, table } from "../output.ts";
import { globalArgs, requireAccount } from "./common.ts";

export function keysCommand(g: Globals) {
  return defineCommand({
    meta: { name: "keys", description: "Manage API keys" },
    subCommands: {
      create: defineCommand({
        meta: { name: "create", description: "Create an API key; its secret is printed only now" },
        args: {
          ...globalArgs,
          account: { type: "string", description: "Account name or id", required: true },
          "allow-ip": { type: "string", description: "Allowed client IP or CIDR (v4/v6); repeat for more" },
          label: { type: "string", description: `A note to recognize the key by (at most ${MAX_KEY_LABEL} characters)` },
        },
        run: ({ args, rawArgs }) => {
          // A malformed --allow-ip is a usage error (exit 2), like any other bad flag value.
          const allowIps = repeated(rawArgs, "allow-ip");
          const bad = invalidAllowIp(allowIps);
          if (bad !== undefined) throw new UsageError(`--allow-ip ${bad} is not an IP address or CIDR`);
          // createApiKey's limit, checked as a flag before anything is opened.
          if (args.label !== undefined && args.label.length > MAX_KEY_LABEL) throw new UsageError(`--label must be at most ${MAX_KEY_LABEL} characters`);
          return withContext(g, async (ctx) => {
            const account = await requireAccount(ctx.db, String(args.account));
            const result = await createApiKey(ctx, {
              accountId: account.id,
              allowIps,
              label: args.label ?? null,
            });
            if (!result.ok) throw new CommandError(result.error);
            const { label: _label, ...doc } = result.key;
            emit(g, doc, () => `${fields(Object.entries(doc))}\n\nStore the secret now: it is not shown again.`);
          });
        },
      }),
      list: defineCommand({
        meta: { name: "list", description: "List API keys (never their secrets)" },
        args: { ...globalArgs, account: { type: "string", description: "Only this account's keys (name or id)" } },
        run: ({ args }) =>
          withContext(g, async (ctx) => {
            const accountId = args.account ? (await requireAccount(ctx.db, args.account)).id : undefined;
            const keys = await listApiKeys(ctx.db, accountId);
            emit(g, { keys }, () =>
              table(
                ["API_KEY", "ACCOUNT_ID", "ALLOW_IPS", "LABEL", "CREATED_AT", "REVOKED_AT"],
                keys.map((k) => [k.api_key, k.account_id, k.allow_ips.join(",") || "any", k.label, k.created_at, k.revoked_at]),
              ),
            );
          }),
      }),
      revoke: defineCommand({
        meta: { name: "revoke", description: "Revoke an API key; it answers `Invalid API key` from then on" },
        args: { ...globalArgs, api_key: { type: "positional", description: "The API key (UUID)", required: true } },
        run: ({ args }) =>
          withContext(g, async (ctx) => {
            const key = String(args.api_key);
            const revoked = await revokeKey(ctx, key);
            if (!revoked.ok) throw new CommandError(failureMessage(revoked));
            emit(g, { api_key: key, revoked: true }, () => `revoked ${key}`);
          }),
      }),
    },
  });
}
