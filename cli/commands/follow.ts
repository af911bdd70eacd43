import { defineCommand } from "citty";
import { findNetwork, unknownNetwork } from "../../src/config/networks.ts";
import { rewindBlocks } from "../../src/follow/core/chain-store.ts";
import { followStatus } from "../../src/follow/core/follow-status.ts";
import { requestResume } from "../../src/follow/core/follower-state.ts";
import { networkServices } from "../../src/follow/network-service.ts";
import { withContext } from "../context.ts";
import { CommandError, type Globals, intFlag, UsageError } from "../globals.ts";
import { emit, fields, table } from "../output.ts";
import { globalArgs } from "./common.ts";

export function followCommand(g: Globals) {
  return defineCommand({
    meta: { name: "follow", description: "Chain followers: status, and rewind after a deep reorg" },
    subCommands: {
      status: defineCommand({
        meta: {
          name: "status",
          description:
            "Per followed network: upstream, node height, stored tip, lag, state, leading daemon (as it last reported); then every network: followed or fed only by ingest, and whether /rpc serves it",
        },
        args: { ...globalArgs },
        run: () =>
          withContext(g, async (ctx) => {
            const followers = await followStatus(ctx.db, ctx.config, ctx.clock.now());
            const networks = networkServices(ctx.config);
            emit(g, { followers, networks }, () =>
              [
                table(
                  ["NETWORK", "UPSTREAM", "NODE_HEIGHT", "STORED_TIP", "LAG", "STATE", "BLOCKS/S", "LEADER", "QUORUM", "LAST_ERROR"],
                  followers.map((f) => [
                    f.network,
                    f.upstream,
                    f.node_height,
                    f.stored_tip,
                    f.lag,
                    f.state,
                    f.blocks_per_second,
                    f.leader,
                    f.quorum ? `waiting since ${f.quorum.waiting_since} (block ${f.quorum.height})` : null,
                    f.last_error,
                  ]),
                ),
                "",
                table(
                  ["NETWORK", "FAMILY", "BLOCKS_FROM", "RPC"],
                  networks.map((n) => [n.network, n.family, n.blocks_from, n.rpc ? `/rpc/${n.network}` : "no"]),
                ),
              ].join("\n"),
            );
          }),
      }),
      rewind: defineCommand({
        meta: { name: "rewind", description: "Forget stored blocks above --to and follow again from there (events already stored are not duplicated)" },
        args: {
          ...globalArgs,
          network: { type: "positional", description: "Network slug", required: true },
          to: { type: "string", description: "Height to keep; blocks above it are read again", required: true },
        },
        run: ({ args }) => {
          const to = intFlag(args.to, "to");
          if (to === undefined) throw new UsageError("--to is required");
          return withContext(g, async (ctx) => {
            const network = String(args.network);
            if (!findNetwork(ctx.config.networks, network)) throw new CommandError(unknownNetwork(network));
            const forgotten = await rewindBlocks(ctx.db, network, to);
            // A follower stopped by a deep reorg waits for this before it reads the chain again.
            await requestResume(ctx.db, network, ctx.clock.now());
            const doc = { network, to, blocks_forgotten: forgotten };
            emit(g, doc, () => fields(Object.entries(doc)));
          });
        },
      }),
    },
  });
}
