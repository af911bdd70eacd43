import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestDaemon, type TestClient, type TestDaemon } from "../support/harness.ts";
import { type GoJsonNode, startGoJsonNode } from "../support/go-json-node.ts";
import { postRpc, rpcError } from "./support.ts";

// The method policy reads `method` as JSON.parse does; a node written in Go reads member names
// regardless of case, the last one winning. Every call therefore goes upstream rebuilt from the
// four members the policy judged, and a call with any other member is refused: the node below
// reads requests as Go does and records what it would have run.

let node: GoJsonNode;
let td: TestDaemon;
let c: TestClient;

beforeAll(async () => {
  node = startGoJsonNode();
  td = await startTestDaemon({ config: { networks: { geth: { family: "evm", decimals: 18, rpc_urls: [node.url] } } } });
  c = await td.client({ credits: 1000, rpcRps: 1000 });
});

afterAll(async () => {
  await td?.stop();
  node?.stop();
});

const send = (body: string) => postRpc(`${td.url}/rpc/geth/${c.apiKey}`, body);
const refusal = (id: number | null, member: string) =>
  rpcError(id, -32600, `Invalid request: a call has no member other than jsonrpc, id, method and params (${JSON.stringify(member)}).`);

/** What the node ran for the calls of one request. */
async function ranFor(body: string) {
  const before = node.calls.length;
  const res = await send(body);
  return { res, calls: node.calls.slice(before) };
}

describe("a call smuggling a second method member", () => {
  test.each([
    ['"METHOD":"eth_sendTransaction"', "METHOD"],
    ['"Method":"debug_setHead"', "Method"],
    ['"mETHOD":"personal_sign"', "mETHOD"],
    ['"__proto__":{"method":"eth_sendTransaction"}', "__proto__"],
  ])("%s beside an allowed method answers 400 -32600 and reaches no node", async (member, name) => {
    const { res, calls } = await ranFor(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber",${member},"params":[]}`);
    expect(res).toMatchObject({ status: 400, body: refusal(1, name) });
    expect(calls).toEqual([]);
  });

  test("inside a batch, that call alone is refused; the node runs only the allowed ones", async () => {
    const { res, calls } = await ranFor(
      '[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]},' +
        '{"jsonrpc":"2.0","id":2,"method":"eth_getBalance","Method":"debug_setHead","params":["0x1"]},' +
        '{"jsonrpc":"2.0","id":3,"method":"eth_gasPrice","METHOD":"eth_sendTransaction"}]',
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ jsonrpc: "2.0", id: 1, result: "eth_blockNumber" }, refusal(2, "Method"), refusal(3, "METHOD")]);
    expect(calls).toEqual([{ methodMembers: ["eth_blockNumber"], ran: "eth_blockNumber" }]);
  });

  test("duplicate method members: the node reads exactly one, the one the policy judged", async () => {
    // JSON.parse keeps the last; a parser keeping the first would run eth_sendTransaction.
    const { res, calls } = await ranFor('{"jsonrpc":"2.0","id":4,"method":"eth_sendTransaction","params":[],"method":"eth_getBalance"}');
    expect(res).toMatchObject({ status: 200, body: { jsonrpc: "2.0", id: 4, result: "eth_getBalance" } });
    expect(calls).toEqual([{ methodMembers: ["eth_getBalance"], ran: "eth_getBalance" }]);
    // The other way round the policy judges eth_sendTransaction, and refuses it.
    const reverse = await ranFor('{"jsonrpc":"2.0","id":5,"method":"eth_getBalance","m\\u0065thod":"eth_sendTransaction"}');
    expect(reverse.res).toMatchObject({ status: 200, body: rpcError(5, -32601, "Method not allowed: eth_sendTransaction") });
    expect(reverse.calls).toEqual([]);
  });
});
