import { MAX_DECIMALS } from "../../lib/amount.ts";
import type { DecimalsQuery } from "../core/token-decimals.ts";
import type { TronClient } from "./client.ts";
import { MalformedUpstreamData, preview } from "../core/upstream-data.ts";

const WORD = /^[0-9a-fA-F]{64}$/;

/**
 * A TRC-20 contract's `decimals()` by `/wallet/triggerconstantcontract`, a read-only call that
 * never reaches the chain. The caller is the contract itself: java-tron needs an owner address,
 * and any existing one does for a view function.
 *
 * The servlet answers a TransactionExtention: `result.result` true and `constant_result[0]` the
 * ABI-encoded uint8 when the call ran; a revert (the transaction's `ret[0].ret` FAILED) or a
 * refusal (`result.code`, e.g. CONTRACT_VALIDATE_ERROR for an address with no contract) is the
 * node's answer about the contract: null, cached. A `{"Error": …}` (the node's rate limiter) or no
 * answer throws: unknown, asked again with the block.
 */
export function tronDecimalsQuery(client: TronClient): DecimalsQuery {
  return async (contract) => {
    const { json } = await client.post("/wallet/triggerconstantcontract", {
      owner_address: contract,
      contract_address: contract,
      function_selector: "decimals()",
      visible: true,
    });
    const answer = json as { result?: { result?: unknown }; constant_result?: unknown; transaction?: { ret?: { ret?: unknown }[] } } | null;
    if (typeof answer !== "object" || answer === null || typeof answer.result !== "object" || answer.result === null) {
      throw new MalformedUpstreamData(`the node did not answer decimals() of ${contract} with a contract call result (${preview(json)})`);
    }
    if (answer.result.result !== true || answer.transaction?.ret?.[0]?.ret === "FAILED") return null;
    const word = Array.isArray(answer.constant_result) ? answer.constant_result[0] : undefined;
    if (typeof word !== "string" || !WORD.test(word)) return null;
    const decimals = BigInt(`0x${word}`);
    return decimals <= BigInt(MAX_DECIMALS) ? Number(decimals) : null;
  };
}
