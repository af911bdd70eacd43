import type { UsagePoint } from "../billing/usage.ts";
import { type Html, html } from "../lib/html.ts";

// A narrow viewBox keeps the axis labels legible when the chart is 330 px wide on a phone.
const W = 400;
const H = 180;
const PAD_LEFT = 48;
const PAD_BOTTOM = 22;
const PAD_TOP = 8;

/** The largest "round" number (1, 2, 5 × 10^n) at or above `n`, so the axis reads well. */
export function niceCeiling(n: number): number {
  if (n <= 0) return 1;
  const base = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 2, 5, 10]) if (m * base >= n) return m * base;
  return 10 * base;
}

/**
 * The daily usage series as an inline SVG bar chart of credits spent, drawn on the server: no
 * script, no library. Each bar has a <title> (hover and screen readers) with the day's figures;
 * the whole chart has a text summary.
 */
export function usageChart(series: UsagePoint[]): Html {
  const max = niceCeiling(Math.max(0, ...series.map((p) => p.credits)));
  const plotW = W - PAD_LEFT;
  const plotH = H - PAD_BOTTOM - PAD_TOP;
  const slot = plotW / Math.max(1, series.length);
  const barW = Math.max(1, slot * 0.7);
  const total = series.reduce((s, p) => s + p.credits, 0);
  const first = series[0]?.date ?? "";
  const last = series[series.length - 1]?.date ?? "";
  const summary = `Credits spent per day from ${first} to ${last}: ${total} in total, at most ${Math.max(0, ...series.map((p) => p.credits))} on one day.`;
  const bars = series.map((p, i) => {
    const h = (p.credits / max) * plotH;
    const x = PAD_LEFT + i * slot + (slot - barW) / 2;
    const y = PAD_TOP + plotH - h;
    return html`<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${Math.max(h, 0.5).toFixed(1)}" fill="${p.credits > 0 ? "#0b5cad" : "#c9d2dc"}"><title>${p.date}: ${p.credits} credits, ${p.deliveries} deliveries, ${p.events} events</title></rect>`;
  });
  const baseY = PAD_TOP + plotH;
  return html`<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${summary}" xmlns="http://www.w3.org/2000/svg">
<line x1="${PAD_LEFT}" y1="${baseY}" x2="${W}" y2="${baseY}" stroke="#9aa4ae"/>
<line x1="${PAD_LEFT}" y1="${PAD_TOP}" x2="${W}" y2="${PAD_TOP}" stroke="#e5e8ec"/>
<text x="${PAD_LEFT - 6}" y="${PAD_TOP + 10}" text-anchor="end" font-size="13" fill="#5a6470">${max}</text>
<text x="${PAD_LEFT - 6}" y="${baseY}" text-anchor="end" font-size="13" fill="#5a6470">0</text>
${bars}
<text x="${PAD_LEFT}" y="${H - 5}" font-size="13" fill="#5a6470">${first}</text>
<text x="${W}" y="${H - 5}" text-anchor="end" font-size="13" fill="#5a6470">${last}</text>
</svg>`;
}
