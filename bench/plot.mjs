// Line charts for docs/BENCHMARKS.md: drawn as SVG here, turned into PNG by headless Chromium
// (already installed for the browser tests), so no plotting library is needed.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const W = 800;
const H = 450;
const M = { left: 70, right: 160, top: 40, bottom: 55 };
const COLORS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea"];

const esc = (s) => String(s).replace(/[<&>]/g, (c) => ({ "<": "&lt;", "&": "&amp;", ">": "&gt;" })[c]);

/** Round tick values covering [lo, hi]. */
function ticks(lo, hi, count = 5) {
  const step = 10 ** Math.floor(Math.log10((hi - lo) / count || 1));
  const nice = [1, 2, 5, 10].map((m) => m * step).find((s) => (hi - lo) / s <= count) ?? step * 10;
  const out = [];
  for (let v = Math.floor(lo / nice) * nice; v <= hi + nice / 2; v += nice) out.push(Number(v.toPrecision(6)));
  return out;
}

/** An SVG line chart; `logX` puts x on a log10 scale. */
export function lineChart({ title, xLabel, yLabel, series, logX = false }) {
  const fx = logX ? Math.log10 : (x) => x;
  const xs = series.flatMap((s) => s.points.map(([x]) => fx(x)));
  const ys = series.flatMap((s) => s.points.map(([, y]) => y));
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const yTicks = ticks(0, Math.max(...ys) * 1.1 || 1);
  const [y0, y1] = [0, yTicks.at(-1)];
  const px = (x) => M.left + ((fx(x) - x0) / (x1 - x0 || 1)) * (W - M.left - M.right);
  const py = (y) => H - M.bottom - ((y - y0) / (y1 - y0 || 1)) * (H - M.top - M.bottom);
  const xTicks = logX
    ? Array.from({ length: Math.floor(x1) - Math.ceil(x0) + 1 }, (_, i) => 10 ** (Math.ceil(x0) + i))
    : ticks(x0, x1);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${W / 2}" y="22" text-anchor="middle" font-size="15">${esc(title)}</text>`,
    `<text x="${(M.left + W - M.right) / 2}" y="${H - 12}" text-anchor="middle">${esc(xLabel)}</text>`,
    `<text transform="translate(16 ${H / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`,
  ];
  for (const y of yTicks) {
    parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${py(y)}" y2="${py(y)}" stroke="#e5e7eb"/>`);
    parts.push(`<text x="${M.left - 6}" y="${py(y) + 4}" text-anchor="end">${y}</text>`);
  }
  for (const x of xTicks) {
    parts.push(`<text x="${px(x)}" y="${H - M.bottom + 18}" text-anchor="middle">${x.toLocaleString("en")}</text>`);
  }
  parts.push(`<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${H - M.bottom}" stroke="#111"/>`);
  parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" stroke="#111"/>`);
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const d = s.points.map(([x, y], j) => `${j ? "L" : "M"}${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(" ");
    parts.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="2"/>`);
    if (s.points.length <= 20) for (const [x, y] of s.points) parts.push(`<circle cx="${px(x)}" cy="${py(y)}" r="3.5" fill="${color}"/>`);
    parts.push(`<rect x="${W - M.right + 14}" y="${M.top + i * 22}" width="14" height="3" fill="${color}"/>`);
    parts.push(`<text x="${W - M.right + 34}" y="${M.top + i * 22 + 5}">${esc(s.name)}</text>`);
  });
  parts.push("</svg>");
  return parts.join("\n");
}

/** Renders an SVG to a PNG file with headless Chromium. */
export function svgToPng(svg, out) {
  const dir = mkdtempSync(path.join(tmpdir(), "smarthole-plot-"));
  try {
    const file = path.join(dir, "chart.svg");
    writeFileSync(file, svg);
    execFileSync(
      "chromium",
      [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", `--user-data-dir=${path.join(dir, "profile")}`, "--hide-scrollbars",
        `--window-size=${W},${H}`, `--screenshot=${path.resolve(out)}`, `file://${file}`,
      ],
      { stdio: "ignore", timeout: 60_000 },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
