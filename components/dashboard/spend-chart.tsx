import type { DailyModelSpend } from "@/lib/dashboard/queries";
import { formatUsd } from "./format";

const maxSeries = 5;

/** Drawn twice, CSS showing one: SVG text scales with the drawing, so a phone needs its own. */
interface Layout {
  name: "wide" | "narrow";
  width: number;
  height: number;
  plot: { left: number; right: number; top: number; bottom: number };
  /** A date label under every n-th day. */
  labelEvery: number;
}

const layouts: Layout[] = [
  { name: "wide", width: 720, height: 220, plot: { left: 76, right: 8, top: 12, bottom: 26 }, labelEvery: 7 },
  // About 330 px wide on a phone: 11 px of text is 11 px on screen.
  {
    name: "narrow",
    width: 340,
    height: 200,
    plot: { left: 74, right: 6, top: 12, bottom: 26 },
    labelEvery: 10,
  },
];

interface Series {
  name: string;
  colour: string;
  total: bigint;
}

/** Spend per UTC day, stacked by model: plain SVG drawn on the server, no chart library. */
export function SpendChart({ days, rows }: { days: string[]; rows: DailyModelSpend[] }) {
  const series = pickSeries(rows);
  const seriesOf = (model: string) => series.find((entry) => entry.name === model) ?? series.at(-1);
  const perDay = new Map<string, Map<string, bigint>>();
  for (const row of rows) {
    const name = seriesOf(row.model)?.name ?? row.model;
    const day = perDay.get(row.day) ?? new Map<string, bigint>();
    day.set(name, (day.get(name) ?? 0n) + row.cost);
    perDay.set(row.day, day);
  }
  const dayTotals = days.map((day) =>
    [...(perDay.get(day)?.values() ?? [])].reduce((sum, cost) => sum + cost, 0n),
  );
  // biome-ignore lint/complexity/useMathMinMax: bigints, which Math.max does not take.
  const peak = dayTotals.reduce((max, total) => (total > max ? total : max), 0n);
  const scaleMax = niceCeiling(peak);
  const total = dayTotals.reduce((sum, cost) => sum + cost, 0n);

  return (
    <figure className="dash-chart" aria-labelledby="spend-chart-caption">
      <figcaption id="spend-chart-caption" className="dash-chart__caption">
        Spend per day, last {days.length} days (UTC): {formatUsd(total)} in all
      </figcaption>
      {layouts.map((layout) => (
        <ChartDrawing
          key={layout.name}
          layout={layout}
          days={days}
          perDay={perDay}
          series={series}
          scaleMax={scaleMax}
        />
      ))}
      {series.length === 0 ? (
        <p className="dash-muted dash-chart__empty">
          No requests yet. Make a call with one of the snippets below.
        </p>
      ) : (
        <ul className="dash-legend" aria-label="Models">
          {series.map((entry) => (
            <li key={entry.name}>
              <span className="dash-legend__swatch" style={{ background: entry.colour }} aria-hidden="true" />
              {entry.name} <span className="dash-muted">{formatUsd(entry.total)}</span>
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}

function ChartDrawing({
  layout,
  days,
  perDay,
  series,
  scaleMax,
}: {
  layout: Layout;
  days: string[];
  perDay: Map<string, Map<string, bigint>>;
  series: Series[];
  scaleMax: bigint;
}) {
  const { width, height, plot } = layout;
  const plotWidth = width - plot.left - plot.right;
  const plotHeight = height - plot.top - plot.bottom;
  const slot = plotWidth / days.length;
  const barWidth = Math.max(2, slot * 0.68);
  const y = (value: bigint) =>
    plot.top + plotHeight - (Number((value * 10_000n) / scaleMax) / 10_000) * plotHeight;
  return (
    <svg
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-labelledby="spend-chart-caption"
      className={`dash-chart__svg dash-chart__svg--${layout.name}`}
    >
      <title>Spend per day by model</title>
      {[0, 0.5, 1].map((fraction) => {
        const value = (scaleMax * BigInt(Math.round(fraction * 100))) / 100n;
        const lineY = y(value);
        return (
          <g key={fraction} className="dash-chart__grid">
            <line x1={plot.left} x2={width - plot.right} y1={lineY} y2={lineY} />
            <text x={plot.left - 6} y={lineY + 4} textAnchor="end">
              {formatUsd(value)}
            </text>
          </g>
        );
      })}
      {days.map((day, index) => {
        const x = plot.left + index * slot + (slot - barWidth) / 2;
        let base = 0n;
        const costs = perDay.get(day);
        return (
          <g key={day} data-day={day}>
            {series.map((entry) => {
              const cost = costs?.get(entry.name) ?? 0n;
              if (cost === 0n) return null;
              const top = y(base + cost);
              const bottom = y(base);
              base += cost;
              return (
                <rect
                  key={entry.name}
                  x={x}
                  y={top}
                  width={barWidth}
                  height={Math.max(1, bottom - top)}
                  fill={entry.colour}
                  rx={1.5}
                  data-model={entry.name}
                >
                  <title>{`${day} · ${entry.name}: ${formatUsd(cost)}`}</title>
                </rect>
              );
            })}
            {index % layout.labelEvery === (days.length - 1) % layout.labelEvery ? (
              // The last day's label ends at its bar: centred, half of it would hang past the drawing's edge.
              <text
                x={index === days.length - 1 ? x + barWidth : x + barWidth / 2}
                y={height - 8}
                textAnchor={index === days.length - 1 ? "end" : "middle"}
                className="dash-chart__label"
              >
                {day.slice(5)}
              </text>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}

const palette = [
  "var(--chart-1)",
  "var(--chart-2)",
  "var(--chart-3)",
  "var(--chart-4)",
  "var(--chart-5)",
  "var(--chart-other)",
];

/** The biggest models get a colour each; the rest share "other models". */
function pickSeries(rows: DailyModelSpend[]): Series[] {
  const totals = new Map<string, bigint>();
  for (const row of rows) totals.set(row.model, (totals.get(row.model) ?? 0n) + row.cost);
  const ranked = [...totals.entries()].sort((left, right) =>
    left[1] === right[1] ? left[0].localeCompare(right[0]) : left[1] > right[1] ? -1 : 1,
  );
  const kept = ranked.length > maxSeries + 1 ? ranked.slice(0, maxSeries) : ranked;
  const series = kept.map(([name, total], index) => ({
    name,
    total,
    colour: palette[index] ?? "var(--chart-other)",
  }));
  if (kept.length < ranked.length) {
    const rest = ranked.slice(maxSeries).reduce((sum, [, cost]) => sum + cost, 0n);
    series.push({ name: "other models", total: rest, colour: "var(--chart-other)" });
  }
  return series;
}

/** A round axis maximum above the peak: 1, 2 or 5 times a power of ten (in microunits). */
function niceCeiling(peak: bigint): bigint {
  if (peak <= 0n) return 10_000n;
  let step = 1n;
  while (step * 10n <= peak) step *= 10n;
  for (const factor of [1n, 2n, 5n, 10n]) if (step * factor >= peak) return step * factor;
  return step * 10n;
}
