// Run in a process of its own by test/follow/family-modules.test.ts (a test process has loaded
// every module of the tree already): starts a daemon following the networks given as JSON (the
// `networks` table of its config), prints how many of viem's modules the process then holds, and
// stops the daemon.
import { startTestDaemon } from "./harness.ts";

const networks = JSON.parse(process.argv[2] ?? "{}") as Record<string, unknown>;
const daemon = await startTestDaemon({ config: { networks } });
const viem = Object.keys(require.cache).filter((path) => path.includes("/node_modules/viem/")).length;
await daemon.stop();
console.log(JSON.stringify({ viem }));
