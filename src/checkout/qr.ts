import encodeQR from "@paulmillr/qr";
import { escapeHtml } from "../lib/html.ts";

// QR codes of payment requests as inline SVG, made in this process (no image service, no script in
// the browser). @paulmillr/qr picks the version and the mask the QR standard asks for; the SVG here
// is drawn from its module matrix as one path of dark runs, with the 4-module quiet zone the
// standard requires, and nothing a Content-Security-Policy could object to (no style attribute).

/** Modules of light border around the code (ISO/IEC 18004's quiet zone). */
export const QUIET_ZONE = 4;

/**
 * Medium error correction (15 %): a phone camera reads it off a screen at any size the page shows,
 * and a long EIP-681 URI stays a version a camera resolves easily.
 */
const ECC = "medium" as const;

/** The QR code's dark modules: `matrix[y][x]` is true for dark, without the quiet zone. */
export function qrMatrix(text: string): boolean[][] {
  return encodeQR(text, "raw", { ecc: ECC, border: 0 });
}

/** One SVG path of the matrix's dark modules: a rectangle per horizontal run, in module units. */
function darkRuns(matrix: boolean[][]): string {
  let d = "";
  matrix.forEach((row, y) => {
    let x = 0;
    while (x < row.length) {
      if (!row[x]) {
        x++;
        continue;
      }
      const start = x;
      while (x < row.length && row[x]) x++;
      d += `M${start} ${y}h${x - start}v1h${start - x}z`;
    }
  });
  return d;
}

/** The SVG markup of `text`'s QR code; `label` is what a screen reader says for it (escaped here). */
export function qrSvg(text: string, label: string): string {
  const matrix = qrMatrix(text);
  const size = matrix.length + 2 * QUIET_ZONE;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="qr" viewBox="${-QUIET_ZONE} ${-QUIET_ZONE} ${size} ${size}" role="img" aria-label="${escapeHtml(label)}" shape-rendering="crispEdges">` +
    `<rect x="${-QUIET_ZONE}" y="${-QUIET_ZONE}" width="${size}" height="${size}" fill="#fff"/><path fill="#000" d="${darkRuns(matrix)}"/></svg>`
  );
}

/**
 * qrSvg behind a bounded cache: choosing the mask costs milliseconds of CPU per code, and every
 * viewer of a page in the same state shows the same code. The oldest entry goes first when full.
 */
export function createQrCache(maxEntries = 2000): (text: string, label: string) => string {
  const cache = new Map<string, string>();
  return (text, label) => {
    const key = `${text}\u0000${label}`;
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const svg = qrSvg(text, label);
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value as string);
    cache.set(key, svg);
    return svg;
  };
}
