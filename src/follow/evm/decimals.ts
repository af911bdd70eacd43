import { decodeFunctionResult, encodeFunctionData, erc20Abi } from "viem";
import type { TokenConfig } from "../../config/schema.ts";
import type { Db } from "../../db/database.ts";
import type { Clock } from "../../lib/clock.ts";
import { MAX_DECIMALS } from "../../lib/amount.ts";
import { createDecimalsCache, type DecimalsQuery, type TokenDecimals } from "../core/token-decimals.ts";
import { type RpcClient, RpcError } from "./client.ts";

const DECIMALS_CALL = encodeFunctionData({ abi: erc20Abi, functionName: "decimals" });

/** decimals() by eth_call at `latest`. */
export function evmDecimalsQuery(rpc: RpcClient): DecimalsQuery {
  return async (contract) => {
    let data: `0x${string}`;
    try {
      data = await rpc.call<`0x${string}`>("eth_call", [{ to: contract, data: DECIMALS_CALL }, "latest"]);
    } catch (e) {
      // The node answered (execution reverted, no such function): a fact worth caching.
      // No upstream answered: unknown, so the caller retries the block later.
      if (e instanceof RpcError && e.code !== null) return null;
      throw e;
    }
    try {
      const n = decodeFunctionResult({ abi: erc20Abi, functionName: "decimals", data });
      return n <= MAX_DECIMALS ? n : null;
    } catch {
      return null;
    }
  };
}

/** An EVM network's token decimals: contracts keyed lower case, decimals() by eth_call. */
export function createTokenDecimals(deps: { db: Db; clock: Clock; network: string; tokens: Record<string, TokenConfig>; rpc: RpcClient }): TokenDecimals {
  const tokens = Object.fromEntries(Object.entries(deps.tokens).map(([address, t]) => [address.toLowerCase(), t]));
  return createDecimalsCache({ ...deps, tokens, ask: evmDecimalsQuery(deps.rpc) });
}
