import { describe, expect, test } from "bun:test";
import { startTestDaemon } from "../support/harness.ts";

// A daemon that stopped, or never started listening, leaves nothing on the process: Elysia's listen
// adds a `beforeExit` listener that holds the whole app, and one left behind kept every stopped
// daemon of a process (a test worker, a bench, anything embedding startDaemon) in memory.

const beforeExit = () => process.listeners("beforeExit");

describe("a daemon's process listeners", () => {
  test("a daemon that stopped leaves the process's beforeExit listeners as it found them", async () => {
    const before = beforeExit();
    const td = await startTestDaemon();
    // While it runs, Elysia's own listener is there (it stops the server should the loop run dry).
    expect(beforeExit().length).toBe(before.length + 1);
    await td.stop();
    expect(beforeExit()).toEqual(before);
  });

  test("ten daemons started and stopped in turn leave none behind", async () => {
    const before = beforeExit();
    for (let i = 0; i < 10; i++) await (await startTestDaemon()).stop();
    expect(beforeExit()).toEqual(before);
  });

  test("of two daemons running at once, each takes back its own listener only", async () => {
    const before = beforeExit();
    const [a, b] = await Promise.all([startTestDaemon(), startTestDaemon()]);
    expect(beforeExit().length).toBe(before.length + 2);
    await a.stop();
    expect(beforeExit().length).toBe(before.length + 1);
    await b.stop();
    expect(beforeExit()).toEqual(before);
  });

  test("a daemon whose port is taken fails to start and leaves none behind", async () => {
    const holder = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("someone else") });
    try {
      const before = beforeExit();
      await expect(startTestDaemon({ config: { server: { port: holder.port } } })).rejects.toThrow(`port ${holder.port} is in use`);
      expect(beforeExit()).toEqual(before);
    } finally {
      holder.stop(true);
    }
  });
});
