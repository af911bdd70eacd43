import { readFileSync } from "node:fs";

// A port for a process started on a port of its caller's choosing (`serve --port`, a config's
// server.port, litecoind's RPC, a bench's own servers). Asking the kernel for port 0 and letting
// it go leaves a gap before the process binds it, and the kernel hands ports from the same range
// to every outgoing connection's source port: under the suite's parallel workers one of those took
// such a port in that gap ("port … is in use"). A port below that range is never handed out on
// its own.

/** The first port of the kernel's ephemeral range (Linux; 32768 elsewhere). */
function ephemeralStart(): number {
  try {
    const first = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > 2_000 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

/** A port on 127.0.0.1 that nothing listens on now, below the kernel's ephemeral range and above 1024, picked at random. */
export function freePort(): number {
  const top = ephemeralStart();
  const bottom = Math.max(1_025, top - 12_000);
  for (let i = 0; i < 100; i++) {
    const port = bottom + Math.floor(Math.random() * (top - bottom));
    try {
      Bun.serve({ hostname: "127.0.0.1", port, fetch: () => new Response() }).stop(true);
      return port;
    } catch {
      // Taken: try another.
    }
  }
  throw new Error(`no free port between ${bottom} and ${top}`);
}
