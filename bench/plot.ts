// A small hand-written SVG: throughput at 50 connections and added latency at concurrency 1, one
// bar group per system, so results.md can show the comparison at a glance.
export interface PlotRow {
  label: string;
  rps: number;
  addedP50: number;
  addedP99: number;
}

const escapeXml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function panel(
  title: string,
  rows: { label: string; values: { value: number; color: string; text: string }[] }[],
  x: number,
  width: number,
): string {
  const labelWidth = 190;
  const barArea = width - labelWidth - 70;
  const max = Math.max(1e-9, ...rows.flatMap((row) => row.values.map((entry) => entry.value)));
  const parts = [`<text x="${x}" y="20" font-weight="bold">${escapeXml(title)}</text>`];
  let y = 36;
  for (const row of rows) {
    parts.push(`<text x="${x}" y="${y + 12}">${escapeXml(row.label)}</text>`);
    for (const entry of row.values) {
      const length = Math.max(1, (Math.max(0, entry.value) / max) * barArea);
      parts.push(
        `<rect x="${x + labelWidth}" y="${y}" width="${length.toFixed(1)}" height="12" fill="${entry.color}"/>`,
        `<text x="${x + labelWidth + length + 4}" y="${y + 10}" font-size="11">${escapeXml(entry.text)}</text>`,
      );
      y += 15;
    }
    y += 8;
  }
  return parts.join("\n");
}

export function renderPlot(rows: PlotRow[]): string {
  const height = 50 + rows.length * 46;
  const throughput = panel(
    "Throughput, 50 connections (req/s)",
    rows.map((row) => ({
      label: row.label,
      values: [{ value: row.rps, color: "#3b6fb6", text: row.rps.toFixed(0) }],
    })),
    10,
    470,
  );
  const latency = panel(
    "Added latency at concurrency 1 (ms): p50, p99",
    rows
      .filter((row) => Number.isFinite(row.addedP50))
      .map((row) => ({
        label: row.label,
        values: [
          { value: row.addedP50, color: "#e07b39", text: `p50 ${row.addedP50.toFixed(2)}` },
          { value: row.addedP99, color: "#b5452a", text: `p99 ${row.addedP99.toFixed(2)}` },
        ],
      })),
    500,
    470,
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="980" height="${height}" font-family="sans-serif" font-size="12">`,
    "<title>Throughput at 50 connections and added latency at concurrency 1, per system</title>",
    `<rect width="100%" height="100%" fill="white"/>`,
    throughput,
    latency,
    "</svg>",
    "",
  ].join("\n");
}
