import { defineCommand } from "citty";
import { findNetwork } from "../../src/config/networks.ts";
import { failureMessage } from "../../src/lib/failures.ts";
import { MAX_BATCH, unwatchAddresses, watchAddresses } from "../../src/watch/watch-batch.ts";
import { withContext } from "../context.ts";
import { CommandError, type Globals, UsageError } from "../globals.ts";
import { emit, table } from "../output.ts";
import { globalArgs, requireAccount } from "./common.ts";

// Watch and unwatch addresses in bulk from a list, through the same use cases as the batch routes,
// MAX_BATCH items a transaction however long the list.

// A process of its own has no snapshot cache to drop: the daemon's is at most a second old.
const NO_SNAPSHOTS = { invalidate() {} };

/** The list's items: one a line, surrounding blanks trimmed, empty lines and `#` comments skipped. */
async function readList(source: string): Promise<string[]> {
  let text: string;
  try {
    text = source === "-" ? await Bun.stdin.text() : await Bun.file(source).text();
  } catch (e) {
    throw new CommandError(`cannot read ${source}: ${(e as Error).message}`);
  }
  const items = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  if (items.length === 0) throw new CommandError(`${source === "-" ? "stdin" : source} lists nothing`);
  return items;
}

function slices<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += MAX_BATCH) out.push(items.slice(i, i + MAX_BATCH));
  return out;
}

/** Prints the answers (the batch routes' `results`, the list's order) and fails when any item was refused. */
function report(g: Globals, items: string[], results: Record<string, unknown>[], done: (r: Record<string, unknown>) => string): void {
  emit(g, { results }, () => table(["item", "result"], items.map((item, i) => [item, "error" in results[i] ? `error: ${results[i].error}` : done(results[i])])));
  const refused = results.filter((r) => "error" in r).length;
  if (refused > 0) throw new CommandError(`${refused} of ${items.length} refused`);
}

export function watchesCommand(g: Globals) {
  return defineCommand({
    meta: { name: "watches", description: "Watch and unwatch addresses in bulk" },
    subCommands: {
      add: defineCommand({
        meta: { name: "add", description: "Watch every address of a list (one a line) on a network for an account, as POST /v1/address-watch/addresses/batch does" },
        args: {
          ...globalArgs,
          account: { type: "string", description: "Account name or id", required: true },
          network: { type: "string", description: "Network slug", required: true },
          file: { type: "positional", description: "The addresses, one a line (# comments and blank lines skipped), or - for stdin", required: true },
        },
        run: async ({ args }) => {
          const items = await readList(String(args.file));
          await withContext(g, async (ctx) => {
            const network = String(args.network);
            // One network for the whole list: a wrong one is the flag's mistake, not every line's.
            if (!findNetwork(ctx.config.networks, network)) throw new UsageError(`--network: unknown network ${network}`);
            const account = await requireAccount(ctx.db, String(args.account));
            const results: Record<string, unknown>[] = [];
            for (const slice of slices(items)) {
              const outcome = await watchAddresses({ ...ctx, snapshots: NO_SNAPSHOTS }, account.id, { addresses: slice.map((address) => ({ network_slug: network, address })) });
              if (!outcome.ok) throw new CommandError(failureMessage(outcome));
              for (const r of outcome.results) results.push(r.ok ? r.watch : { error: failureMessage(r) });
            }
            report(g, items, results, (r) => String(r.watch_id));
          });
        },
      }),
      remove: defineCommand({
        meta: { name: "remove", description: "Stop an account's watches listed by id (one a line), as DELETE /v1/address-watch/addresses/batch does" },
        args: {
          ...globalArgs,
          account: { type: "string", description: "Account name or id", required: true },
          file: { type: "positional", description: "The watch ids, one a line, or - for stdin", required: true },
        },
        run: async ({ args }) => {
          const items = await readList(String(args.file));
          await withContext(g, async (ctx) => {
            const account = await requireAccount(ctx.db, String(args.account));
            const results: Record<string, unknown>[] = [];
            for (const slice of slices(items)) {
              const outcome = await unwatchAddresses({ ...ctx, snapshots: NO_SNAPSHOTS }, account.id, { watch_ids: slice });
              if (!outcome.ok) throw new CommandError(failureMessage(outcome));
              for (const r of outcome.results) results.push(r.ok ? { watch_id: r.watchId, deleted: true } : { error: failureMessage(r) });
            }
            report(g, items, results, () => "deleted");
          });
        },
      }),
    },
  });
}
