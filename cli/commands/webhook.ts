import { defineCommand } from "citty";
import { findNetwork } from "../../src/config/networks.ts";
import { queueTestDelivery, TEST_EVENTS } from "../../src/delivery/test-payloads.ts";
import { withContext } from "../context.ts";
import { CommandError, type Globals, UsageError } from "../globals.ts";
import { emit, fields } from "../output.ts";
import { globalArgs, requireAccount } from "./common.ts";

export function webhookCommand(g: Globals) {
  return defineCommand({
    meta: { name: "webhook", description: "Webhook tools" },
    subCommands: {
      test: defineCommand({
        meta: {
          name: "test",
          description: "Queue a test delivery (never billed); the running daemon sends it on its next tick",
        },
        args: {
          ...globalArgs,
          account: { type: "string", description: "Account name or id", required: true },
          event: { type: "string", description: TEST_EVENTS.join(" | "), required: true },
          network: { type: "string", description: "Network slug", required: true },
        },
        run: ({ args }) =>
          withContext(g, async (ctx) => {
            const event = String(args.event);
            const network = String(args.network);
            if (!(TEST_EVENTS as readonly string[]).includes(event))
              throw new UsageError(`--event must be one of ${TEST_EVENTS.join(", ")}`);
            if (!findNetwork(ctx.config.networks, network)) throw new UsageError(`--network: unknown network ${network}`);
            const account = await requireAccount(ctx.db, String(args.account));
            const queued = await queueTestDelivery({ db: ctx.db, config: ctx.config, nowMs: ctx.clock.now() }, account, {
              event,
              network,
            });
            if (!queued.ok) throw new CommandError(queued.error);
            const doc = { queued: true, delivery_id: queued.deliveryId };
            emit(g, doc, () => fields(Object.entries(doc)));
          }),
      }),
    },
  });
}
