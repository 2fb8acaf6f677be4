/**
 * A minimal Prometheus registry: counters and histograms with labels, rendered in the
 * text exposition format (version 0.0.4). Process-local, like any Prometheus client.
 */
type Labels = Record<string, string>;

const needsEscape = /[\\\n"]/;

function escapeLabel(value: string): string {
  if (!needsEscape.test(value)) return value;
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

/** Runs on every request: label names are ASCII, so plain code-unit order sorts them (no ICU). */
function labelKey(labels: Labels): string {
  const names = Object.keys(labels);
  if (names.length === 0) return "";
  if (names.length > 1) names.sort();
  let key = "{";
  for (const [index, name] of names.entries())
    key += `${index === 0 ? "" : ","}${name}="${escapeLabel(labels[name] ?? "")}"`;
  return `${key}}`;
}

function withLabel(key: string, name: string, value: string): string {
  const label = `${name}="${value}"`;
  return key === "" ? `{${label}}` : `${key.slice(0, -1)},${label}}`;
}

interface Metric {
  render(): string;
}

export class Counter implements Metric {
  readonly #values = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Labels = {}, amount = 1): void {
    const key = labelKey(labels);
    this.#values.set(key, (this.#values.get(key) ?? 0) + amount);
  }

  value(labels: Labels = {}): number {
    return this.#values.get(labelKey(labels)) ?? 0;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const [key, value] of this.#values) lines.push(`${this.name}${key} ${value}`);
    return lines.join("\n");
  }
}

export class Histogram implements Metric {
  readonly #series = new Map<string, { counts: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: number[],
  ) {}

  observe(labels: Labels, value: number): void {
    const key = labelKey(labels);
    let series = this.#series.get(key);
    if (!series) {
      series = { counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    this.buckets.forEach((bound, index) => {
      if (value <= bound && series) series.counts[index] = (series.counts[index] ?? 0) + 1;
    });
    series.sum += value;
    series.count += 1;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const [key, series] of this.#series) {
      this.buckets.forEach((bound, index) => {
        lines.push(`${this.name}_bucket${withLabel(key, "le", String(bound))} ${series.counts[index] ?? 0}`);
      });
      lines.push(`${this.name}_bucket${withLabel(key, "le", "+Inf")} ${series.count}`);
      lines.push(`${this.name}_sum${key} ${series.sum}`);
      lines.push(`${this.name}_count${key} ${series.count}`);
    }
    return lines.join("\n");
  }
}

/** A gauge read at scrape time (e.g. from the database). */
export interface GaugeSample {
  name: string;
  help: string;
  value: number;
}

export function renderMetrics(metrics: Metric[], gauges: GaugeSample[]): string {
  const parts = metrics.map((metric) => metric.render());
  for (const gauge of gauges)
    parts.push(
      `# HELP ${gauge.name} ${gauge.help}\n# TYPE ${gauge.name} gauge\n${gauge.name} ${gauge.value}`,
    );
  return `${parts.join("\n")}\n`;
}
