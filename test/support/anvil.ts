import type { Subprocess } from "bun";
import { dirname, join } from "node:path";
import { createPublicClient, createTestClient, createWalletClient, type Address, type Hash, http, type PublicClient, type TestClient, type WalletClient } from "viem";
import { foundry } from "viem/chains";

// A real anvil node for tests and benchmarks: the binary comes from @foundry-rs/anvil's platform
// package (installed by `bun install`, nothing downloaded at run time), listens on an ephemeral
// 127.0.0.1 port, and is stopped by its own pid.

const PLATFORM_PACKAGES: Record<string, string> = {
  "linux-x64": "anvil-linux-amd64",
  "linux-arm64": "anvil-linux-arm64",
  "darwin-x64": "anvil-darwin-amd64",
  "darwin-arm64": "anvil-darwin-arm64",
};

/** The anvil binary inside node_modules. */
export function anvilBinary(): string {
  const pkg = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  if (!pkg) throw new Error(`no anvil package for ${process.platform}-${process.arch}`);
  return join(dirname(Bun.fileURLToPath(import.meta.resolve(`@foundry-rs/${pkg}/package.json`))), "bin", "anvil");
}

export type Anvil = {
  url: string;
  port: number;
  pid: number;
  /** anvil's unlocked dev accounts. */
  accounts: Address[];
  public: PublicClient;
  wallet: WalletClient;
  test: TestClient;
  /** A raw JSON-RPC call (for methods viem has no action for). */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Sends ETH from an unlocked account; returns the hash (mined at once unless automine is off). */
  sendEth(from: Address, to: Address, wei: bigint): Promise<Hash>;
  /** Waits until the transaction is mined and returns its block number. */
  mined(hash: Hash): Promise<number>;
  stop(): Promise<void>;
};

/** Starts anvil on 127.0.0.1 with an ephemeral port; extra flags (e.g. `--block-time`) go in `args`. */
export async function startAnvil(args: string[] = []): Promise<Anvil> {
  const proc: Subprocess<"ignore", "pipe", "pipe"> = Bun.spawn([anvilBinary(), "--host", "127.0.0.1", "--port", "0", ...args], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const port = await new Promise<number>((resolve, reject) => {
    let text = "";
    let found = false;
    const timer = setTimeout(() => reject(new Error(`anvil did not start: ${text.slice(-500)}`)), 20_000);
    (async () => {
      // Drains stdout for anvil's whole life: a full pipe would block the node.
      const decoder = new TextDecoder();
      for await (const chunk of proc.stdout) {
        if (found) continue;
        text += decoder.decode(chunk);
        const m = /Listening on 127\.0\.0\.1:(\d+)/.exec(text);
        if (m) {
          found = true;
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      }
      if (!found) {
        clearTimeout(timer);
        reject(new Error(`anvil exited: ${text.slice(-500)} ${await new Response(proc.stderr).text()}`));
      }
    })();
  });
  const url = `http://127.0.0.1:${port}`;
  const transport = http(url, { retryCount: 0 });
  // cacheTime 0: a test reads the head right after mining; viem would otherwise answer getBlockNumber from a 50 ms cache.
  const publicClient = createPublicClient({ chain: foundry, transport, pollingInterval: 50, cacheTime: 0 });
  const wallet = createWalletClient({ chain: foundry, transport });
  const test = createTestClient({ chain: foundry, mode: "anvil", transport });
  const accounts = await wallet.getAddresses();
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }) });
    const json = (await res.json()) as { result?: T; error?: { message: string } };
    if (json.error) throw new Error(`${method}: ${json.error.message}`);
    return json.result as T;
  };
  return {
    url,
    port,
    pid: proc.pid,
    accounts,
    public: publicClient as PublicClient,
    wallet,
    test,
    rpc,
    sendEth: (from, to, wei) => wallet.sendTransaction({ account: from, to, value: wei, chain: foundry }),
    async mined(hash) {
      const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      return Number(receipt.blockNumber);
    },
    async stop() {
      proc.kill("SIGKILL");
      await proc.exited;
    },
  };
}
