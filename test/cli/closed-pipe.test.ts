import { expect, test } from "bun:test";
import { join } from "node:path";

// A command's output to a reader that stops early (`chainwatch … | head -1`, or a parent that closes
// its end): the command's writes (cli/globals.ts, fdWriter) meet a closed pipe (EPIPE) or socket
// (ECONNRESET), and the command goes on to its end and exits with its own status, printing nothing
// about it. A child process writes 2 MB through the writer, far past what its stdout holds, while
// this test reads the first chunk and closes its end. Bun.spawn gives the child a socket pair, and
// whether output is left unread when it closes (ECONNRESET) depends on timing: one run in fifteen
// met it before fdWriter took it as the end.

const GLOBALS = join(import.meta.dir, "../../cli/globals.ts");
const CHILD = `
import { fdWriter } from ${JSON.stringify(GLOBALS)};
const out = fdWriter(1);
for (let i = 0; i < 2000; i++) out.write("x".repeat(999) + "\\n");
fdWriter(2).write("finished\\n");
process.exitCode = 3;
`;

test("output to a reader that went away ends quietly; the command finishes and exits with its own status", async () => {
  const proc = Bun.spawn([process.execPath, "-e", CHILD], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  const first = await reader.read();
  expect(first.done).toBe(false);
  await reader.cancel();
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  expect(stderr).toBe("finished\n");
  expect(code).toBe(3);
});

test("a reader that takes everything gets every byte, in order", async () => {
  const proc = Bun.spawn([process.execPath, "-e", CHILD], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(stdout).toBe(`${"x".repeat(999)}\n`.repeat(2000));
  expect(stderr).toBe("finished\n");
  expect(code).toBe(3);
});
