import type { Subprocess } from "bun";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.ts";

// A real Litecoin Core node (`litecoind -regtest`, Debian's package) for tests of the
// Bitcoin family: Litecoin Core 0.21 speaks Bitcoin Core's JSON-RPC. It runs in a fresh datadir
// under os.tmpdir() (or one the caller keeps) on free 127.0.0.1 ports, talks to no one (no
// listening, no seeds, no connections), and is stopped by its own pid. Regtest mines at once, so
// tests make their blocks.

// Debian's /usr/bin/litecoind is a script that writes ~/.litecoin (a config with a random password)
// before it execs the daemon: the daemon itself touches nothing outside its datadir. LITECOIND
// overrides both (a build elsewhere).
const DEBIAN_DAEMON = "/usr/lib/litecoin/litecoind";
const LITECOIND = process.env.LITECOIND ?? (existsSync(DEBIAN_DAEMON) ? DEBIAN_DAEMON : "litecoind");
const RPC_USER = "chainwatch";
// Letters only: the credentials go into the URL as they are.
const RPC_PASSWORD = "regtestsecret";
const START_TIMEOUT_MS = 30_000;
// A clean shutdown flushes a few MB at regtest sizes; a node still running after this is stuck.
const SHUTDOWN_TIMEOUT_MS = 60_000;
// A free port can be taken between our probe and the node's bind: try again with new ones.
const START_ATTEMPTS = 3;

/** Address types of `getnewaddress` in Litecoin Core 0.21 regtest: `m…`/`n…` (p2pkh, version 111), `Q…` (p2sh, version 58), `rltc1…`. */
export type AddressType = "legacy" | "p2sh-segwit" | "bech32";

/** A JSON-RPC error the node answered (its code and message), or a failed HTTP request. */
export class NodeRpcError extends Error {
  constructor(
    message: string,
    readonly code: number | null,
  ) {
    super(message);
    this.name = "NodeRpcError";
  }
}

export type Litecoind = {
  /** The RPC URL with its credentials (`http://user:pass@127.0.0.1:PORT/`), as a network's `rpc_urls` holds it. */
  url: string;
  /** The same URL without credentials. */
  bareUrl: string;
  rpcPort: number;
  pid: number;
  datadir: string;
  /** One JSON-RPC call (to `wallet`'s endpoint when given); throws NodeRpcError when the node answers an error. */
  rpc<T = unknown>(method: string, params?: unknown[], wallet?: string): Promise<T>;
  /** Creates and loads a wallet; the helpers below use the last one created. */
  createWallet(name: string): Promise<void>;
  newAddress(type?: AddressType): Promise<string>;
  /**
   * Mines `n` blocks to `address` (a new bech32 address of the wallet when none); returns their
   * hashes. Coinbase outputs spend after 100 blocks, so a wallet mines 101 before its first send.
   * MWEB never activates (`-vbparams=mweb:-2:0`): on regtest it would at height 432, whose block
   * cannot be mined without a peg-in (bad-txns-vin-empty), and tests mine well past it.
   */
  mine(n: number, address?: string): Promise<string[]>;
  /** Sends `amount` LTC (a decimal string, never a float) from the wallet; returns the txid. */
  send(address: string, amount: string): Promise<string>;
  /** One transaction paying each address its amount (decimal strings); returns the txid. */
  sendMany(amounts: Record<string, string>): Promise<string>;
  /**
   * SIGKILL, then removes the datadir unless the caller keeps it (`datadir` of startLitecoind).
   * Safe to call twice. A killed node has not flushed its block index: a node started again on
   * the same datadir may find the chain at height 0. Keep a datadir with shutdown() instead.
   */
  stop(): Promise<void>;
  /**
   * The RPC `stop`, then waits for the node to exit, so its block index, chainstate and wallets
   * are on disk for the next node started on the datadir; throws when the node does not exit
   * cleanly (exit code 0). Takes a second or more where stop() takes milliseconds: for a datadir
   * kept after the node (a bench's cached chain), not for tests. The node waits for idle HTTP
   * connections to close before it exits, and Bun keeps them open for reuse: start it with
   * `-rpcservertimeout=1`, or this waits the default 30 s for them.
   */
  shutdown(): Promise<void>;
};

export type LitecoindOptions = {
  /** A datadir the caller keeps: the node runs on it, and neither stop() nor a failed start removes it. */
  datadir?: string;
};

/** Starts `litecoind -regtest` and resolves once its RPC answers; `args` are added to its flags. */
export async function startLitecoind(args: string[] = [], opts: LitecoindOptions = {}): Promise<Litecoind> {
  let lastError: unknown;
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    const datadir = opts.datadir ?? mkdtempSync(join(tmpdir(), "chainwatch-litecoind-"));
    const owned = opts.datadir === undefined;
    try {
      return await startIn(datadir, owned, freePort(), freePort(), args);
    } catch (e) {
      if (owned) rmSync(datadir, { recursive: true, force: true });
      lastError = e;
    }
  }
  throw lastError;
}

async function startIn(datadir: string, owned: boolean, rpcPort: number, p2pPort: number, args: string[]): Promise<Litecoind> {
  const proc: Subprocess<"ignore", "ignore", "pipe"> = Bun.spawn(
    [
      LITECOIND,
      "-regtest",
      `-datadir=${datadir}`,
      "-server",
      `-rpcuser=${RPC_USER}`,
      `-rpcpassword=${RPC_PASSWORD}`,
      "-rpcbind=127.0.0.1",
      "-rpcallowip=127.0.0.1",
      `-rpcport=${rpcPort}`,
      `-port=${p2pPort}`,
      "-fallbackfee=0.0001",
      "-txindex=0",
      "-listen=0",
      "-connect=0",
      "-dnsseed=0",
      "-upnp=0",
      "-printtoconsole=0",
      "-daemon=0",
      // MWEB never activates (-2: never active): its activation block needs a peg-in to be mined.
      "-vbparams=mweb:-2:0",
      // A wallet derives keys as addresses are asked for instead of a pool of 1,000 ahead (which
      // makes createwallet take seconds); a test asks for a hundred at most.
      "-keypool=1",
      // Caches sized for a regtest chain of a few hundred blocks, not mainnet's (their allocation is
      // a good part of the start).
      "-maxsigcachesize=1",
      "-dbcache=4",
      ...args,
    ],
    { stdin: "ignore", stdout: "ignore", stderr: "pipe" },
  );
  const bareUrl = `http://127.0.0.1:${rpcPort}/`;
  const url = `http://${RPC_USER}:${RPC_PASSWORD}@127.0.0.1:${rpcPort}/`;
  const auth = `Basic ${btoa(`${RPC_USER}:${RPC_PASSWORD}`)}`;
  let wallet: string | undefined;
  let stopped: Promise<void> | null = null;

  const rpc = async <T>(method: string, params: unknown[] = [], walletName?: string): Promise<T> => {
    const target = walletName === undefined ? bareUrl : `${bareUrl}wallet/${encodeURIComponent(walletName)}`;
    const res = await fetch(target, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: auth },
      body: JSON.stringify({ jsonrpc: "1.0", id: 0, method, params }),
    });
    const text = await res.text();
    // A failing call answers HTTP 500 with the error in the body; anything else without JSON is the HTTP layer's.
    let json: { result?: T; error?: { code: number; message: string } | null };
    try {
      json = JSON.parse(text);
    } catch {
      throw new NodeRpcError(`${method}: HTTP ${res.status} ${text.slice(0, 200)}`, null);
    }
    if (json.error) throw new NodeRpcError(`${method}: ${json.error.message} (${json.error.code})`, json.error.code);
    return json.result as T;
  };

  const stop = () => {
    stopped ??= (async () => {
      proc.kill("SIGKILL");
      await proc.exited;
      if (owned) rmSync(datadir, { recursive: true, force: true });
    })();
    return stopped;
  };

  const shutdown = async () => {
    if (stopped) throw new Error("litecoind was already stopped");
    await rpc("stop");
    let timer: Timer | undefined;
    const code = await Promise.race([proc.exited, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), SHUTDOWN_TIMEOUT_MS)))]);
    clearTimeout(timer);
    const failure =
      code === null ? `litecoind did not exit within ${SHUTDOWN_TIMEOUT_MS} ms of the stop RPC (killed)` : code !== 0 ? `litecoind exited with code ${code} after the stop RPC` : null;
    const log = failure ? debugLogTail(datadir) : "";
    // Marks the node stopped (and kills it if it hung); removes the datadir only if it is the harness's own.
    await stop();
    if (failure) throw new Error(`${failure}: ${log}`);
  };

  try {
    await untilRpcAnswers(proc, rpc, datadir);
  } catch (e) {
    await stop();
    throw e;
  }

  const walletName = () => {
    if (wallet === undefined) throw new Error("create a wallet first (createWallet)");
    return wallet;
  };
  const newAddress = (type: AddressType = "bech32") => rpc<string>("getnewaddress", ["", type], walletName());

  return {
    url,
    bareUrl,
    rpcPort,
    pid: proc.pid,
    datadir,
    rpc,
    async createWallet(name) {
      await rpc("createwallet", [name]);
      wallet = name;
    },
    newAddress,
    async mine(n, address) {
      return rpc<string[]>("generatetoaddress", [n, address ?? (await newAddress("bech32"))]);
    },
    // Amounts go as strings: the node parses them exactly (AmountFromValue takes both).
    send: (address, amount) => rpc<string>("sendtoaddress", [address, amount], walletName()),
    sendMany: (amounts) => rpc<string>("sendmany", ["", amounts], walletName()),
    stop,
    shutdown,
  };
}

/** Polls the RPC until it answers (it says -28 "Loading…" while warming up); fails when the node exits or takes too long. */
async function untilRpcAnswers(proc: Subprocess<"ignore", "ignore", "pipe">, rpc: (method: string) => Promise<unknown>, datadir: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let exited = false;
  proc.exited.then(() => (exited = true));
  for (;;) {
    try {
      await rpc("getblockchaininfo");
      return;
    } catch (e) {
      if (exited) throw new Error(`litecoind exited (${proc.exitCode}): ${(await new Response(proc.stderr).text()).trim() || debugLogTail(datadir)}`);
      if (Date.now() > deadline) throw new Error(`litecoind did not answer within ${START_TIMEOUT_MS} ms: ${(e as Error).message}; ${debugLogTail(datadir)}`);
    }
    await Bun.sleep(50);
  }
}

/** The end of the node's debug.log, for a start that failed. */
function debugLogTail(datadir: string): string {
  try {
    return readFileSync(join(datadir, "regtest", "debug.log"), "utf8").slice(-1500);
  } catch {
    return "(no debug.log)";
  }
}
