import { decodeQR } from "@paulmillr/qr/decode.js";

// Reading the checkout page's QR codes back, as a wallet's camera would: the SVG the page serves is
// drawn into pixels (each module a square of `scale` pixels, the quiet zone white) and handed to
// @paulmillr/qr's decoder, which knows nothing of how the SVG was made.

/** An RGBA image of an SVG QR code as ../../src/checkout/qr.ts draws it: a viewBox and one path of `M x y h w v1 h-w z` runs. */
export function rasterizeQrSvg(svg: string, scale = 6): { width: number; height: number; data: Uint8Array } {
  const box = /viewBox="(-?\d+) (-?\d+) (\d+) (\d+)"/.exec(svg);
  const path = /<path[^>]* d="([^"]*)"/.exec(svg);
  if (!box || !path) throw new Error("not a QR code SVG of the checkout page");
  const [x0, y0, w] = [Number(box[1]), Number(box[2]), Number(box[3])];
  const size = w * scale;
  const data = new Uint8Array(size * size * 4).fill(255);
  for (const m of path[1].matchAll(/M(\d+) (\d+)h(\d+)v1h-\d+z/g)) {
    const [x, y, run] = [Number(m[1]) - x0, Number(m[2]) - y0, Number(m[3])];
    for (let py = y * scale; py < (y + 1) * scale; py++)
      for (let px = x * scale; px < (x + run) * scale; px++) data.fill(0, (py * size + px) * 4, (py * size + px) * 4 + 3);
  }
  return { width: size, height: size, data };
}

/** The text of an SVG QR code, read from its pixels. */
export function readQrSvg(svg: string): string {
  return decodeQR(rasterizeQrSvg(svg));
}

/** A live-update stream read the way EventSource reads it: `status` events' data, parsed. */
export type EventReader = {
  status: number;
  headers: Headers;
  /** The next `status` event's JSON, or "closed" once the server ended the stream; throws after `timeoutMs`. */
  next(timeoutMs?: number): Promise<Record<string, any> | "closed">;
  /** Reads events until one satisfies `check` (returned); throws when the stream closes first. */
  until(check: (state: Record<string, any>) => boolean, timeoutMs?: number): Promise<Record<string, any>>;
  close(): void;
};

/** Opens `/pay/<token>/events` (with extra request headers) and reads it. */
export async function openEvents(url: string, headers: Record<string, string> = {}): Promise<EventReader> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: "text/event-stream", ...headers }, signal: abort.signal });
  const reader = res.body?.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let done = false;
  const pending: (Record<string, any> | "closed")[] = [];
  const fill = async (deadline: number) => {
    while (pending.length === 0 && !done) {
      if (!reader) {
        done = true;
        break;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("no event within the deadline");
      const chunk = await Promise.race([reader.read(), Bun.sleep(left).then(() => null)]);
      if (chunk === null) throw new Error("no event within the deadline");
      if (chunk.done) done = true;
      else buffer += decoder.decode(chunk.value, { stream: true });
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const lines = block.split("\n");
        if (lines.includes("event: status")) {
          const data = lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
          pending.push(JSON.parse(data));
        }
        end = buffer.indexOf("\n\n");
      }
    }
    if (pending.length === 0 && done) pending.push("closed");
  };
  const next = async (timeoutMs = 15_000) => {
    await fill(Date.now() + timeoutMs);
    return pending.shift() as Record<string, any> | "closed";
  };
  return {
    status: res.status,
    headers: res.headers,
    next,
    async until(check, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const e = await next(Math.max(1, deadline - Date.now()));
        if (e === "closed") throw new Error("the stream closed first");
        if (check(e)) return e;
      }
    },
    close: () => abort.abort(),
  };
}
