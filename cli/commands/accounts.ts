import { defineCommand } from "citty";
import {
  accountView,
  addCredits,
  createAccount,
  listAccounts,
  setAccountPlan,
} from "../../src/accounts/accounts.ts";
import { disableAccount, enableAccount } from "../../src/accounts/account-state.ts";
import { getPlan } from "../../src/accounts/plans.ts";
import type { Context } from "../../src/context.ts";
import type { Account } from "../../src/db/schema.ts";
import { failureMessage } from "../../src/lib/failures.ts";
import { purgeAccount } from "../../src/ops/purge-account.ts";
import { slotsUsed } from "../../src/watch/watches.ts";
import { readEndpointSecret } from "../../src/webhooks/endpoint-secret.ts";
import { defaultEndpoint } from "../../src/webhooks/endpoints.ts";
import { withContext } from "../context.ts";
import { CommandError, type Globals, intFlag, UsageError } from "../globals.ts";
import { emit, fields, table } from "../output.ts";
import { globalArgs, requireAccount } from "./common.ts";

async function view(ctx: Context, a: Account, withSecret = false) {
  const plan = await getPlan(ctx.db, a.plan);
  return accountView(a, {
    slotsUsed: await slotsUsed(ctx.db, a.id),
    slotsLimit: plan?.address_slots ?? 0,
    webhookSecret: withSecret ? (await readEndpointSecret(ctx, (await defaultEndpoint(ctx.db, a.id)).id)).secret : undefined,
  });
}

/**
 * What an account created without --plan cannot do yet, and how to fix it; null when nothing is
 * missing. Said on stderr, so the JSON on stdout stays one document.
 */
export function defaultPlanWarning(a: { name: string; plan: string; slots: number; credits: number; billing: boolean }): string | null {
  const unpaid = a.billing && a.credits === 0;
  if (a.slots > 0 && !unpaid) return null;
  const lacks = [
    ...(a.slots === 0 ? ["0 address slots (it cannot watch any address)"] : []),
    ...(unpaid ? ["0 credits (its webhooks wait as paused)"] : []),
  ];
  const fixes = [
    ...(a.slots === 0 ? [`\`chainwatch accounts set-plan ${a.name} PLAN\` (make a plan with \`chainwatch plans set PLAN --slots N\`)`] : []),
    ...(unpaid ? [`\`chainwatch accounts credit ${a.name} --add N\``] : []),
  ];
  return `warning: no --plan given, so account ${a.name} is on plan ${a.plan}: ${lacks.join(", ")}; to fix: ${fixes.join(", ")}; or pass --plan and --credits to accounts create`;
}

/**
 * What an account created on a plan that bills (billing on) with no credits meets: its webhooks
 * are held until credits come. Null when it has credits or billing is off. Said on stderr, like
 * defaultPlanWarning (which covers this for an account created without --plan).
 */
export function noCreditsWarning(a: { name: string; plan: string; credits: number; billing: boolean; monthlyCredits: number }): string | null {
  if (!a.billing || a.credits > 0) return null;
  const grant = a.monthlyCredits > 0 ? ` until plan ${a.plan}'s monthly ${a.monthlyCredits} credits are granted (within the hour while serve runs)` : "";
  return (
    `warning: account ${a.name} has 0 credits and billing is on: its webhooks will be held (paused; health \`held_no_credits\`)${grant}; ` +
    `to fix: \`chainwatch accounts credit ${a.name} --add N\`, or pass --credits to accounts create`
  );
}

function human(v: Awaited<ReturnType<typeof view>>): string {
  return fields(Object.entries(v).map(([k, x]) => [k, k === "address_slots" ? `${v.address_slots.used}/${v.address_slots.limit}` : x]));
}

export function accountsCommand(g: Globals) {
  return defineCommand({
    meta: { name: "accounts", description: "Manage API client accounts" },
    subCommands: {
      create: defineCommand({
        meta: { name: "create", description: "Create an account (prints its webhook secret)" },
        args: {
          ...globalArgs,
          name: { type: "positional", description: "Account name", required: true },
          plan: { type: "string", description: "Plan name (default: free)" },
          credits: { type: "string", description: "Starting credit balance (default: 0)" },
        },
        run: ({ args }) => {
          const credits = intFlag(args.credits, "credits");
          return withContext(g, async (ctx) => {
            const result = await createAccount(ctx, { name: String(args.name), plan: args.plan, credits });
            if (!result.ok) throw new CommandError(result.error);
            const a = result.account;
            const doc = { account_id: a.id, name: a.name, plan: a.plan, credits: a.credits, webhook_secret: result.webhookSecret };
            emit(g, doc, () => fields(Object.entries(doc)));
            const plan = await getPlan(ctx.db, a.plan);
            const billing = ctx.config.billing.enabled;
            const warning =
              args.plan === undefined
                ? defaultPlanWarning({ name: a.name, plan: a.plan, slots: plan?.address_slots ?? 0, credits: a.credits, billing })
                : noCreditsWarning({ name: a.name, plan: a.plan, credits: a.credits, billing, monthlyCredits: plan?.monthly_credits ?? 0 });
            if (warning) g.io.stderr.write(`chainwatch: ${warning}\n`);
          });
        },
      }),
      list: defineCommand({
        meta: { name: "list", description: "List accounts with plan, credits and slots used" },
        args: { ...globalArgs },
        run: () =>
          withContext(g, async (ctx) => {
            const accounts = await Promise.all((await listAccounts(ctx.db)).map((a) => view(ctx, a)));
            emit(g, { accounts }, () =>
              table(
                ["ACCOUNT_ID", "NAME", "STATUS", "PLAN", "CREDITS", "SLOTS"],
                accounts.map((a) => [a.account_id, a.name, a.status, a.plan, a.credits, `${a.address_slots.used}/${a.address_slots.limit}`]),
              ),
            );
          }),
      }),
      show: defineCommand({
        meta: { name: "show", description: "Show one account, with its webhook secret" },
        args: { ...globalArgs, account: { type: "positional", description: "Account name or id", required: true } },
        run: ({ args }) =>
          withContext(g, async (ctx) => {
            const v = await view(ctx, await requireAccount(ctx.db, String(args.account)), true);
            emit(g, v, () => human(v));
          }),
      }),
      credit: defineCommand({
        meta: { name: "credit", description: "Add credits; resumes deliveries paused for lack of credits" },
        args: {
          ...globalArgs,
          account: { type: "positional", description: "Account name or id", required: true },
          add: { type: "string", description: "Credits to add", required: true },
        },
        run: ({ args }) => {
          const amount = intFlag(args.add, "add");
          if (!amount) throw new UsageError("--add must be a positive integer");
          return withContext(g, async (ctx) => {
            const a = await requireAccount(ctx.db, String(args.account));
            const result = await addCredits(ctx.db, ctx.clock, a.id, amount);
            if (!result.ok) throw new CommandError(result.error);
            const v = await view(ctx, result.account);
            emit(g, v, () => human(v));
          });
        },
      }),
      disable: defineCommand({
        meta: {
          name: "disable",
          description: "Disable an account: its API keys, /rpc and cabinet are refused and its deliveries wait (paused); watches and events go on",
        },
        args: { ...globalArgs, account: { type: "positional", description: "Account name or id", required: true } },
        run: ({ args }) =>
          withContext(g, async (ctx) => {
            const a = await requireAccount(ctx.db, String(args.account));
            const result = await disableAccount(ctx.db, ctx.clock, a.id);
            if (!result.ok) throw new CommandError(failureMessage(result));
            const v = await view(ctx, result.account);
            emit(g, v, () => human(v));
            if (!result.changed) g.io.stderr.write(`chainwatch: account ${a.name} was disabled already\n`);
          }),
      }),
      enable: defineCommand({
        meta: { name: "enable", description: "Enable a disabled account; the deliveries that waited go out" },
        args: { ...globalArgs, account: { type: "positional", description: "Account name or id", required: true } },
        run: ({ args }) =>
          withContext(g, async (ctx) => {
            const a = await requireAccount(ctx.db, String(args.account));
            const result = await enableAccount(ctx.db, ctx.clock, a.id);
            if (!result.ok) throw new CommandError(failureMessage(result));
            const v = await view(ctx, result.account);
            emit(g, v, () => human(v));
            if (!result.changed) g.io.stderr.write(`chainwatch: account ${a.name} was enabled already\n`);
          }),
      }),
      delete: defineCommand({
        meta: { name: "delete", description: "Delete an account with every row it has in every table (--purge); prints what was removed per table" },
        args: {
          ...globalArgs,
          account: { type: "positional", description: "Account name or id", required: true },
          purge: { type: "boolean", description: "Required: remove the account and all of its rows (keys, watches, events, deliveries, orders, wallets, endpoints, usage, notices, cabinet sessions) in one transaction" },
          force: { type: "boolean", description: "Purge even while the account has open payment orders (pending, seen, underpaid, aml_check)" },
        },
        run: ({ args }) => {
          if (!args.purge) {
            throw new UsageError(
              "accounts delete needs --purge: it removes the account and every row it has in every table (keys, watches, events, deliveries, orders, wallets, endpoints, usage, notices, cabinet sessions), and cannot be undone; to only stop it, use accounts disable",
            );
          }
          return withContext(g, async (ctx) => {
            const a = await requireAccount(ctx.db, String(args.account));
            const result = await purgeAccount(ctx.db, a, { force: Boolean(args.force) });
            if (!result.ok) throw new CommandError(`${failureMessage(result)}; pass --force to purge it with them, or wait until they are paid, failed or expired`);
            const doc = { account_id: a.id, name: a.name, purged: true, removed: result.removed };
            emit(g, doc, () =>
              [
                `purged account ${a.name} (${a.id}), ${Object.values(result.removed).reduce((s, n) => s + n, 0)} rows in all:`,
                table(["TABLE", "ROWS"], Object.entries(result.removed)),
              ].join("\n"),
            );
          });
        },
      }),
      "set-plan": defineCommand({
        meta: { name: "set-plan", description: "Move an account to another plan" },
        args: {
          ...globalArgs,
          account: { type: "positional", description: "Account name or id", required: true },
          plan: { type: "positional", description: "Plan name", required: true },
        },
        run: ({ args }) =>
          withContext(g, async (ctx) => {
            const a = await requireAccount(ctx.db, String(args.account));
            const result = await setAccountPlan(ctx.db, ctx.clock, a.id, String(args.plan));
            if (!result.ok) throw new CommandError(result.error);
            const v = await view(ctx, result.account);
            emit(g, v, () => human(v));
          }),
      }),
    },
  });
}
