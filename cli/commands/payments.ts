import { defineCommand } from "citty";
import { findNetwork } from "../../src/config/networks.ts";
import { failureMessage } from "../../src/lib/failures.ts";
import { MAX_GAP_LIMIT, putWallet } from "../../src/payments/wallets/put-wallet.ts";
import { removeWallet } from "../../src/payments/wallets/remove-wallet.ts";
import { listWallets, type WalletView } from "../../src/payments/wallets/wallets.ts";
import { withContext } from "../context.ts";
import { CommandError, type Globals, UsageError } from "../globals.ts";
import { emit, fields, table } from "../output.ts";
import { globalArgs, requireAccount } from "./common.ts";

/** `--gap-limit N`: a whole number in range, or a usage error naming the flag; undefined when left out. */
function parseGapLimit(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const text = String(raw).trim();
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1 || Number(text) > MAX_GAP_LIMIT) throw new UsageError(`--gap-limit must be a whole number from 1 to ${MAX_GAP_LIMIT}`);
  return Number(text);
}

const walletRow = (w: WalletView) => [w.network, w.kind, w.fingerprint, w.next_index, w.gap_limit, w.unused_tail, w.created_at];

export function paymentsCommand(g: Globals) {
  const wallet = defineCommand({
    meta: { name: "wallet", description: "Payment wallets: orders without an address get the next address derived from an account's extended public key" },
    subCommands: {
      set: defineCommand({
        meta: {
          name: "set",
          description: "Set an account's payment wallet on a network (same checks as PUT /v1/payments/wallets/{network}); the key is never printed",
        },
        args: {
          ...globalArgs,
          account: { type: "string", description: "Account name or id", required: true },
          network: { type: "string", description: "Network slug (btc, evm or tron family)", required: true },
          key: {
            type: "string",
            description: "btc family: an output descriptor (wpkh(tpub…/0/*), …) or a bare xpub/ypub/zpub; evm, tron: the account-level xpub. Never a private key",
            required: true,
          },
          "gap-limit": { type: "string", description: `Unused addresses in a row before a wallet_gap notice, 1 to ${MAX_GAP_LIMIT} (default 20; left out, the same key keeps its own)` },
        },
        run: ({ args }) => {
          const gapLimit = parseGapLimit(args["gap-limit"]);
          const network = String(args.network);
          return withContext(g, async (ctx) => {
            if (!findNetwork(ctx.config.networks, network)) throw new UsageError(`--network: unknown network ${network}`);
            const account = await requireAccount(ctx.db, String(args.account));
            const body = { key: String(args.key), ...(gapLimit === undefined ? {} : { gap_limit: gapLimit }) };
            const outcome = await putWallet(ctx, account.id, network, body);
            // The network and --gap-limit were checked above: a refusal is about the key.
            if (!outcome.ok) throw new CommandError(`--key: ${failureMessage(outcome)}`);
            const doc = outcome.wallet;
            emit(g, doc, () => fields(Object.entries(doc)));
          });
        },
      }),
      list: defineCommand({
        meta: { name: "list", description: "An account's payment wallets, one per network (never their keys)" },
        args: { ...globalArgs, account: { type: "string", description: "Account name or id", required: true } },
        run: ({ args }) =>
          withContext(g, async (ctx) => {
            const account = await requireAccount(ctx.db, String(args.account));
            const doc = await listWallets(ctx, account.id);
            emit(g, doc, () => table(["NETWORK", "KIND", "FINGERPRINT", "NEXT_INDEX", "GAP_LIMIT", "UNUSED_TAIL", "CREATED_AT"], doc.wallets.map(walletRow)));
          }),
      }),
      remove: defineCommand({
        meta: { name: "remove", description: "Remove an account's payment wallet on a network; orders made keep their addresses, still watched" },
        args: {
          ...globalArgs,
          account: { type: "string", description: "Account name or id", required: true },
          network: { type: "string", description: "Network slug", required: true },
        },
        run: ({ args }) =>
          withContext(g, async (ctx) => {
            const network = String(args.network);
            if (!findNetwork(ctx.config.networks, network)) throw new UsageError(`--network: unknown network ${network}`);
            const account = await requireAccount(ctx.db, String(args.account));
            const outcome = await removeWallet(ctx, account.id, network);
            if (!outcome.ok) throw new CommandError(`${failureMessage(outcome)} (account ${account.name} has no payment wallet on --network ${network})`);
            const doc = { network: outcome.network, deleted: outcome.deleted };
            emit(g, doc, () => fields(Object.entries(doc)));
          }),
      }),
    },
  });
  return defineCommand({
    meta: { name: "payments", description: "Payment orders' settings" },
    subCommands: { wallet },
  });
}
