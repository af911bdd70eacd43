import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { INGEST_SLICE } from "../../cli/commands/ingest.ts";

// `chainwatch ingest` of a file larger than one slice: validated whole, stored slice by slice,
// with a progress line on a terminal and nothing extra when piped.
import { testDatabaseName } from "../support/harness.ts";
import { ingestCliConfig, rowCount } from "./cli-fixture.ts";
import { CLI, cleanEnv } from "../support/cli.ts";

const W = "0x1111111111111111111111111111111111111111";
const X = "0x2222222222222222222222222222222222222222";
const N = 2 * INGEST_SLICE + INGEST_SLICE / 2;

let dir: string;
let config: string;

async function piped(args: string[]) {
  const proc = Bun.spawn([process.execPath, CLI, ...args], { cwd: dir, env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** On a pseudo-terminal: stdout and stderr both go to it, as for a person typing the command. */
async function onTerminal(args: string[]) {
  let output = "";
  const decoder = new TextDecoder();
  const proc = Bun.spawn([process.execPath, CLI, ...args], {
    cwd: dir,
    env: cleanEnv(),
    terminal: { cols: 200, rows: 50, data: (_t, data) => (output += decoder.decode(data, { stream: true })) },
  });
  const code = await proc.exited;
  proc.terminal?.close();
  return { code, output };
}

async function counts() {
  return { blocks: await rowCount(config, "blocks"), events: await rowCount(config, "events") };
}

const block = (height: number) => ({ network: "eth", height, hash: `0xb${height}`, transactions: [{ hash: `0xt${height}`, from: X, to: W, value: "1" }] });
const blocks = (from: number, n: number) => Array.from({ length: n }, (_, i) => block(from + i));

describe("chainwatch ingest of a large file", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chainwatch-cli-progress-"));
    config = await ingestCliConfig(dir, W);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a bad block anywhere in the file stores nothing, and the error names its place in the file", async () => {
    const batch: unknown[] = blocks(1, N);
    batch[N - 3] = { ...block(N - 2), transactions: [{ from: X, to: W, value: "1" }] };
    writeFileSync(join(dir, "bad.json"), JSON.stringify(batch));
    const r = await piped(["ingest", "bad.json", "--config", config]);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 1, stdout: "", stderr: `chainwatch: [${N - 3}].transactions[0].hash is required\n` });
    expect(await counts()).toEqual({ blocks: 0, events: 0 });
  });

  it("a height jump in a later slice stores nothing either, named by its place in the file", async () => {
    const batch: unknown[] = blocks(1, N);
    batch[N - 3] = block(50_000);
    writeFileSync(join(dir, "jump.json"), JSON.stringify(batch));
    const r = await piped(["ingest", "jump.json", "--config", config]);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 1,
      stdout: "",
      stderr: `chainwatch: [${N - 3}].height must be at most 10000 above the tip of network eth (${N - 3})\n`,
    });
    expect(await counts()).toEqual({ blocks: 0, events: 0 });
  });

  it("piped, it stores every slice and prints only the result, the database line and a log line a slice", async () => {
    writeFileSync(join(dir, "big.json"), JSON.stringify(blocks(1, N)));
    const r = await piped(["ingest", "big.json", "--json", "--config", config]);
    // One wallet event and one block event per block, as one batch would give.
    expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 0, stdout: `{"blocks":${N},"events":${2 * N}}\n` });
    const logged = r.stderr.trimEnd().split("\n");
    const database = logged.pop();
    expect(database).toBe(`chainwatch: database ${testDatabaseName(dir)} (config ${config} from --config)`);
    expect(logged.map((l) => JSON.parse(l)).map(({ msg, blocks, from_height, to_height }) => ({ msg, blocks, from_height, to_height }))).toEqual([
      { msg: "ingested", blocks: INGEST_SLICE, from_height: 1, to_height: INGEST_SLICE },
      { msg: "ingested", blocks: INGEST_SLICE, from_height: INGEST_SLICE + 1, to_height: 2 * INGEST_SLICE },
      { msg: "ingested", blocks: N - 2 * INGEST_SLICE, from_height: 2 * INGEST_SLICE + 1, to_height: N },
    ]);
    expect(await counts()).toEqual({ blocks: N, events: 2 * N });
  });

  it("on a terminal, it shows progress after each slice", async () => {
    writeFileSync(join(dir, "more.json"), JSON.stringify(blocks(N + 1, N)));
    const r = await onTerminal(["ingest", "more.json", "--config", config]);
    expect(r.code).toBe(0);
    expect(r.output).toContain(`\ringest: ${INGEST_SLICE}/${N} blocks (40%), ${2 * INGEST_SLICE} events\x1b[K`);
    expect(r.output).toContain(`\ringest: ${N}/${N} blocks (100%), ${2 * N} events\x1b[K`);
    expect(r.output).toContain(`stored ${N} new block(s) and ${2 * N} event(s)`);
    // Each slice's log line stands on a line of its own: the progress line is wiped before it.
    expect(r.output.match(/\r\x1b\[K\{"time":"[^"]+","level":"info","msg":"ingested"/g)?.length).toBe(2);
  });

  it("on a terminal, a small file shows no progress line", async () => {
    writeFileSync(join(dir, "small.json"), JSON.stringify(blocks(3 * N, 2)));
    const r = await onTerminal(["ingest", "small.json", "--config", config]);
    expect(r.code).toBe(0);
    expect(r.output).not.toContain("ingest:");
  });
});
