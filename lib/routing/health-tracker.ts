/**
 * Health of each provider, fed by every dispatch attempt before its first byte (with Redis,
 * every replica's attempts: see `share`, so a provider demoted on one replica is demoted on all
 * and recovers on all, as the same attempts age out everywhere). A provider whose recent failure rate or mean time to headers is out of band is
 * demoted (tried after every healthy candidate), never excluded: it still serves when
 * nothing else can. Old attempts age out, so a demoted provider recovers on its own.
 */
export interface HealthThresholds {
  /** Attempts remembered per provider. */
  windowSize: number;
  /** Attempts older than this are forgotten. */
  maxAgeMs: number;
  /** Fewer attempts than this never demote on failure rate (one bad request is not a trend). */
  minAttempts: number;
  /** Demote at or above this share of failed attempts. */
  maxFailureRate: number;
  /** Successful attempts needed before the time-to-headers rule applies. */
  minLatencySamples: number;
  /** Demote when the mean time to headers of recent successes reaches this. */
  maxMeanTimeToHeadersMs: number;
}

const defaultHealthThresholds: HealthThresholds = {
  windowSize: 20,
  maxAgeMs: 10 * 60_000,
  minAttempts: 4,
  maxFailureRate: 0.5,
  minLatencySamples: 3,
  maxMeanTimeToHeadersMs: 10_000,
};

export interface Attempt {
  at: number;
  ok: boolean;
  timeToHeadersMs: number;
}

export interface ProviderHealth {
  attempts: number;
  failureRate: number;
  meanTimeToHeadersMs: number | undefined;
  demoted: boolean;
}

export class HealthTracker {
  readonly thresholds: HealthThresholds;
  readonly #attempts = new Map<string, Attempt[]>();
  readonly #now: () => number;
  #publish: ((providerId: string, attempt: Attempt) => void) | undefined;

  constructor(thresholds: Partial<HealthThresholds> = {}, now: () => number = Date.now) {
    this.thresholds = { ...defaultHealthThresholds, ...thresholds };
    this.#now = now;
  }

  recordSuccess(providerId: string, timeToHeadersMs: number): void {
    this.#recordOwn(providerId, { at: this.#now(), ok: true, timeToHeadersMs });
  }

  recordFailure(providerId: string, elapsedMs: number): void {
    this.#recordOwn(providerId, { at: this.#now(), ok: false, timeToHeadersMs: elapsedMs });
  }

  /** From now on every attempt this process records is also handed to `publish` (the other replicas). */
  share(publish: (providerId: string, attempt: Attempt) => void): void {
    this.#publish = publish;
  }

  /** An attempt another replica recorded (not published again). */
  recordShared(providerId: string, attempt: Attempt): void {
    this.#record(providerId, attempt);
  }

  #recordOwn(providerId: string, attempt: Attempt): void {
    this.#record(providerId, attempt);
    this.#publish?.(providerId, attempt);
  }

  health(providerId: string): ProviderHealth {
    const recent = this.#recent(providerId);
    const failures = recent.filter((attempt) => !attempt.ok).length;
    const successes = recent.filter((attempt) => attempt.ok);
    const failureRate = recent.length === 0 ? 0 : failures / recent.length;
    const meanTimeToHeadersMs =
      successes.length === 0
        ? undefined
        : successes.reduce((sum, attempt) => sum + attempt.timeToHeadersMs, 0) / successes.length;
    const { minAttempts, maxFailureRate, minLatencySamples, maxMeanTimeToHeadersMs } = this.thresholds;
    const failing = recent.length >= minAttempts && failureRate >= maxFailureRate;
    const slow =
      successes.length >= minLatencySamples &&
      meanTimeToHeadersMs !== undefined &&
      meanTimeToHeadersMs >= maxMeanTimeToHeadersMs;
    return { attempts: recent.length, failureRate, meanTimeToHeadersMs, demoted: failing || slow };
  }

  /**
   * `health(providerId).demoted`, asked for every candidate of every request: counted in one pass
   * over the stored attempts, with nothing allocated.
   */
  isDemoted(providerId: string): boolean {
    const attempts = this.#attempts.get(providerId);
    if (!attempts) return false;
    const horizon = this.#now() - this.thresholds.maxAgeMs;
    let recent = 0;
    let failures = 0;
    let successes = 0;
    let timeToHeadersMs = 0;
    for (const attempt of attempts) {
      if (attempt.at < horizon) continue;
      recent += 1;
      if (attempt.ok) {
        successes += 1;
        timeToHeadersMs += attempt.timeToHeadersMs;
      } else failures += 1;
    }
    const { minAttempts, maxFailureRate, minLatencySamples, maxMeanTimeToHeadersMs } = this.thresholds;
    const failing = recent >= minAttempts && failures / recent >= maxFailureRate;
    const slow = successes >= minLatencySamples && timeToHeadersMs / successes >= maxMeanTimeToHeadersMs;
    return failing || slow;
  }

  #recent(providerId: string): Attempt[] {
    const attempts = this.#attempts.get(providerId);
    if (!attempts) return [];
    const horizon = this.#now() - this.thresholds.maxAgeMs;
    const fresh = attempts.filter((attempt) => attempt.at >= horizon);
    if (fresh.length !== attempts.length) this.#attempts.set(providerId, fresh);
    return fresh;
  }

  #record(providerId: string, attempt: Attempt): void {
    const attempts = this.#recent(providerId);
    attempts.push(attempt);
    if (attempts.length > this.thresholds.windowSize)
      attempts.splice(0, attempts.length - this.thresholds.windowSize);
    this.#attempts.set(providerId, attempts);
  }
}
