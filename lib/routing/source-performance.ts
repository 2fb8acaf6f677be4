/**
 * How fast and how reliably each source serves each model, measured by the gateway on real
 * traffic: time to first token, output tokens per second, success rate and the last errors per
 * (source, model). Every figure is exponentially decayed by age (a half-life), so a source that
 * got faster or slower is seen as it is now; with Redis, every replica adds every replica's
 * samples (see `share`), so the figures agree across replicas. Routing reads them
 * (rank-by-performance.ts), and so does anything that judges a source by its speed.
 */

/** One finished attempt of a source at a model. */
export interface PerformanceSample {
  /** Time from dispatch to the first output byte (streams), or to the whole answer. Absent when none came. */
  ttftMs?: number;
  /** Output tokens the answer carried (billed usage). */
  outputTokens: number;
  /** Time from dispatch to the end of the answer. */
  durationMs: number;
  ok: boolean;
  /** What went wrong, a short kind (`upstream_error`, `stall`, …), when not ok. */
  error?: string;
}

/** A sample as replicas exchange it: when it happened, so decay is the same everywhere. */
export interface TimedSample extends PerformanceSample {
  at: number;
}

export interface SourceFigures {
  /** Decayed weight of the samples behind the figures (one fresh sample weighs 1). */
  weight: number;
  /** Samples ever recorded here (own and shared), undecayed. */
  requests: number;
  /** Decayed mean time to first token of successes, in ms. */
  ttftMs: number | undefined;
  /** Decayed output tokens per second of generation (first token to last), token-weighted. */
  tokensPerSecond: number | undefined;
  /** Decayed share of attempts that succeeded. */
  successRate: number | undefined;
  /** The latest failures, newest first. */
  recentErrors: { at: number; error: string }[];
  /** Enough recent traffic (`weight` at least `minWeight`) for the figures to stand for the source. */
  measured: boolean;
}

export interface PerformanceOptions {
  /** A sample this old weighs half a fresh one. */
  halfLifeMs: number;
  /** Decayed weight from which the figures count as measured (and replace announced ones). */
  minWeight: number;
  /** Most (source, model) pairs kept; the longest idle is forgotten first. */
  maxSources: number;
}

const defaultOptions: PerformanceOptions = { halfLifeMs: 15 * 60_000, minWeight: 20, maxSources: 10_000 };
const keptErrors = 5;
const maxMs = 86_400_000;
const maxTokens = 10_000_000;
/** Shorter generations are timer noise, not a speed (a local answer that came in one write). */
const minGenerationMs = 20;

/** The key of one (source, model): the provider (a centralized name or a host's id) and the catalog model. */
export function performanceKey(providerId: string, modelId: string): string {
  return `${providerId}|${modelId}`;
}

/** Decayed sums as of `at`: a sample later than `at` first decays them to its time. */
interface Sums {
  at: number;
  requests: number;
  weight: number;
  ok: number;
  ttftWeight: number;
  ttftSum: number;
  tokens: number;
  generationMs: number;
  errors: { at: number; error: string }[];
}

const bounded = (value: number, max: number) =>
  Number.isFinite(value) ? Math.min(Math.max(value, 0), max) : 0;

export class SourcePerformance {
  readonly options: PerformanceOptions;
  readonly #sums = new Map<string, Sums>();
  readonly #now: () => number;
  #publish: ((key: string, sample: TimedSample) => void) | undefined;

  constructor(options: Partial<PerformanceOptions> = {}, now: () => number = Date.now) {
    this.options = { ...defaultOptions, ...options };
    this.#now = now;
  }

  /** Records one attempt this process made (and hands it to the other replicas when shared). */
  record(key: string, sample: PerformanceSample): void {
    const timed = { ...sample, at: this.#now() };
    this.#add(key, timed);
    this.#publish?.(key, timed);
  }

  /** From now on every sample this process records is also handed to `publish` (the other replicas). */
  share(publish: (key: string, sample: TimedSample) => void): void {
    this.#publish = publish;
  }

  /** A sample another replica recorded (not published again). */
  recordShared(key: string, sample: TimedSample): void {
    this.#add(key, sample);
  }

  figures(key: string): SourceFigures {
    const sums = this.#sums.get(key);
    if (!sums)
      return {
        weight: 0,
        requests: 0,
        ttftMs: undefined,
        tokensPerSecond: undefined,
        successRate: undefined,
        recentErrors: [],
        measured: false,
      };
    const weight = sums.weight * this.#decay(this.#now() - sums.at);
    return {
      weight,
      requests: sums.requests,
      ttftMs: sums.ttftWeight > 0 ? sums.ttftSum / sums.ttftWeight : undefined,
      tokensPerSecond: sums.generationMs > 0 ? (sums.tokens * 1000) / sums.generationMs : undefined,
      successRate: sums.weight > 0 ? sums.ok / sums.weight : undefined,
      recentErrors: [...sums.errors],
      measured: weight >= this.options.minWeight,
    };
  }

  #decay(ageMs: number): number {
    return 2 ** (-Math.max(ageMs, 0) / this.options.halfLifeMs);
  }

  /**
   * Order does not matter: a sample older than the sums is added at its decayed weight, a newer
   * one decays the sums to its time first, so replicas hearing the same samples in another
   * order hold the same figures.
   */
  #add(key: string, sample: TimedSample): void {
    const sums = this.#sums.get(key) ?? this.#fresh(sample.at);
    this.#sums.delete(key);
    this.#sums.set(key, sums);
    if (sample.at > sums.at) {
      const factor = this.#decay(sample.at - sums.at);
      sums.weight *= factor;
      sums.ok *= factor;
      sums.ttftWeight *= factor;
      sums.ttftSum *= factor;
      sums.tokens *= factor;
      sums.generationMs *= factor;
      sums.at = sample.at;
    }
    const weight = this.#decay(sums.at - sample.at);
    sums.requests += 1;
    sums.weight += weight;
    if (!sample.ok) {
      sums.errors = [{ at: sample.at, error: (sample.error ?? "error").slice(0, 100) }, ...sums.errors]
        .sort((a, b) => b.at - a.at)
        .slice(0, keptErrors);
      return;
    }
    sums.ok += weight;
    const durationMs = bounded(sample.durationMs, maxMs);
    if (sample.ttftMs !== undefined) {
      sums.ttftWeight += weight;
      sums.ttftSum += weight * bounded(sample.ttftMs, durationMs);
    }
    const tokens = bounded(sample.outputTokens, maxTokens);
    // Generation runs from the first token to the last; an answer that came whole (no first
    // token apart) is timed end to end.
    const generationMs = durationMs - bounded(sample.ttftMs ?? 0, durationMs);
    if (tokens > 1 && generationMs >= minGenerationMs) {
      sums.tokens += weight * tokens;
      sums.generationMs += weight * generationMs;
    }
  }

  #fresh(at: number): Sums {
    if (this.#sums.size >= this.options.maxSources) {
      const idle = this.#sums.keys().next().value;
      if (idle !== undefined) this.#sums.delete(idle);
    }
    return {
      at,
      requests: 0,
      weight: 0,
      ok: 0,
      ttftWeight: 0,
      ttftSum: 0,
      tokens: 0,
      generationMs: 0,
      errors: [],
    };
  }
}
