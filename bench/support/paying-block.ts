// One ingested block of the delivery benches: height `height` on `eth`, a single transaction paying
// 1 ETH to `to`, posted to a daemon's /ingest/blocks with the bench's ingest token.

const FROM = "0x8617e340b3d01fa5f11f306f4090fd50e238070d";
const hex64 = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

/** The block at `height` paying `to`, and its transaction hash (derived from `seq`). */
export function payingBlock(height: number, seq: number, to: string) {
  const tx = hex64(0xabc00000 + seq);
  const block = {
    network: "eth",
    height,
    hash: hex64(height),
    parent_hash: hex64(height - 1),
    timestamp: Math.floor(Date.now() / 1000),
    transactions: [{ hash: tx, from: FROM, to, value: "1000000000000000000" }],
  };
  return { tx, block };
}

/** Posts a block to /ingest/blocks; anything but 202 throws with the daemon's answer. */
export async function postBlock(baseUrl: string, token: string, block: unknown): Promise<void> {
  const res = await fetch(`${baseUrl}/ingest/blocks`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify(block),
  });
  if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
}
