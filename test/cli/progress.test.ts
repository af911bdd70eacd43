import { describe, expect, test } from "bun:test";
import { terminalProgress } from "../../cli/progress.ts";

function stream(isTTY: boolean) {
  const out: string[] = [];
  return { isTTY, out, write: (t: string) => out.push(t) };
}

describe("terminal progress", () => {
  test("piped (not a terminal) it writes nothing at all", () => {
    const s = stream(false);
    const p = terminalProgress(s);
    p.step("reading");
    p.update("1/2");
    p.done();
    expect(s.out).toEqual([]);
  });

  test("on a terminal it redraws one line in place and ends it with a newline", () => {
    const s = stream(true);
    let t = 0;
    const p = terminalProgress(s, () => t, 100);
    p.update("1/3");
    t = 150;
    p.update("2/3");
    p.done();
    expect(s.out.join("")).toBe("\r1/3\x1b[K\r2/3\x1b[K\n");
  });

  test("updates faster than every 100 ms are skipped, but the last one is always drawn", () => {
    const s = stream(true);
    let t = 0;
    const p = terminalProgress(s, () => t, 100);
    p.update("1/4");
    t = 10;
    p.update("2/4");
    t = 20;
    p.update("3/4");
    t = 30;
    p.update("4/4");
    p.done();
    expect(s.out.join("")).toBe("\r1/4\x1b[K\r4/4\x1b[K\n");
  });

  test("a step ends an open progress line before its own line", () => {
    const s = stream(true);
    const p = terminalProgress(s, () => 0, 100);
    p.update("reading 1 of 2 MiB");
    p.step("parsing");
    p.done();
    expect(s.out.join("")).toBe("\rreading 1 of 2 MiB\x1b[K\nparsing\n");
  });
});
