// The webhook bodies the delivery benches queue. By default each is `{"n":<i>,"pad":"x"×300}`
// (316–320 bytes), as the benches have always queued. BENCH_BODY_BYTES=N makes each exactly N
// bytes instead: an address-watch event is about 500, a payment order's about 700, and a block
// event lists its transactions' hashes (about 6,900 for 100).

const PAD = 300;

/** `total` bodies, the i-th carrying `i`; exactly BENCH_BODY_BYTES each when that is set. */
export function benchBodies(total: number): string[] {
  const raw = process.env.BENCH_BODY_BYTES;
  if (raw === undefined || raw === "") return Array.from({ length: total }, (_, i) => JSON.stringify({ n: i, pad: "x".repeat(PAD) }));
  const bytes = Number(raw);
  const shell = JSON.stringify({ n: total, pad: "" }).length;
  if (!Number.isSafeInteger(bytes) || bytes < shell) {
    console.error(`BENCH_BODY_BYTES must be a whole number of at least ${shell} for ${total} bodies, not ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return Array.from({ length: total }, (_, i) => {
    const head = JSON.stringify({ n: i, pad: "" });
    return `${head.slice(0, -2)}${"x".repeat(bytes - head.length)}"}`;
  });
}

/** What the bodies are, for a bench's first line. */
export function bodiesLabel(): string {
  const raw = process.env.BENCH_BODY_BYTES;
  return raw === undefined || raw === "" ? `bodies of ${PAD + 16}–${PAD + 20} bytes` : `bodies of ${raw} bytes (BENCH_BODY_BYTES)`;
}
