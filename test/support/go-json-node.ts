import type { Server } from "bun";

/**
 * A JSON-RPC node on 127.0.0.1 that reads requests as Go's encoding/json does (geth, Erigon, bor,
 * bsc): an object's members are read in the order written, a member name matches a field
 * regardless of case (Unicode folding: `ſ` is an `s`, `K` a `k`), and of several that match the
 * last one wins. For each call it records every member that a Go node would take for `method`, in
 * order, and the method it would run (the last); it answers each call with that method's name as
 * its result, so a test sees what ran without a node that could do harm.
 */
export type GoJsonNode = {
  url: string;
  /** Per call received, in order: the values of every member read as `method`, and the one run. */
  calls: { methodMembers: unknown[]; ran: unknown }[];
  stop(): void;
};

export function startGoJsonNode(): GoJsonNode {
  const calls: GoJsonNode["calls"] = [];
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const text = await req.text();
      const value = new GoReader(text).value();
      const answer = (call: unknown) => {
        const members = call instanceof Members ? call.list : [];
        const methodMembers = members.filter(([name]) => goFold(name) === "method").map(([, v]) => v);
        const ids = members.filter(([name]) => goFold(name) === "id").map(([, v]) => v);
        const ran = methodMembers.at(-1);
        calls.push({ methodMembers, ran });
        return { jsonrpc: "2.0", id: ids.at(-1) ?? null, result: ran ?? null };
      };
      return Response.json(Array.isArray(value) ? value.map(answer) : answer(value));
    },
  });
  return { url: server.url.href.replace(/\/$/, ""), calls, stop: () => server.stop(true) };
}

/** The form Go's encoding/json compares member names in (bytes.EqualFold), for the names used here. */
function goFold(name: string): string {
  return name.replace(/\u017f/g, "s").replace(/\u212a/g, "k").toLowerCase();
}

/** An object as read member by member, duplicates kept in order (JSON.parse keeps only the last of each name). */
class Members {
  constructor(readonly list: [string, unknown][]) {}
}

/** A small JSON reader keeping objects as Members; values inside members are read the same way. */
class GoReader {
  private at = 0;
  constructor(private readonly text: string) {}

  value(): unknown {
    this.space();
    const c = this.text[this.at];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return this.string();
    const match = /^-?[0-9][0-9.eE+-]*|^true|^false|^null/.exec(this.text.slice(this.at));
    if (!match) throw new Error(`unreadable JSON at ${this.at}`);
    this.at += match[0].length;
    return JSON.parse(match[0]);
  }

  private object(): Members {
    const list: [string, unknown][] = [];
    this.at++;
    this.space();
    if (this.text[this.at] === "}") {
      this.at++;
      return new Members(list);
    }
    for (;;) {
      this.space();
      const name = this.string();
      this.space();
      this.expect(":");
      list.push([name, this.value()]);
      this.space();
      if (this.text[this.at++] === "}") return new Members(list);
    }
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.at++;
    this.space();
    if (this.text[this.at] === "]") {
      this.at++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.space();
      if (this.text[this.at++] === "]") return out;
    }
  }

  private string(): string {
    const start = this.at;
    this.expect('"');
    while (this.text[this.at] !== '"') this.at += this.text[this.at] === "\\" ? 2 : 1;
    this.at++;
    return JSON.parse(this.text.slice(start, this.at));
  }

  private expect(c: string): void {
    if (this.text[this.at++] !== c) throw new Error(`expected ${c} at ${this.at - 1}`);
  }

  private space(): void {
    while (/\s/.test(this.text[this.at] ?? "")) this.at++;
  }
}
