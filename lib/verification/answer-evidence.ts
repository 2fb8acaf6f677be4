/**
 * How much one answer says against "the host sampled this from the model it announced", from the
 * reference's teacher-forced log-probabilities of the host's own tokens.
 *
 * At every position the reference gives the log-probability `logprob` of the token the host
 * produced and its `top` alternatives. Under an honest host that token was drawn from the
 * model at the job's temperature T, so the reference's distribution, tempered by T, says what
 * log-likelihood to expect there (its mean) and how widely it varies (its cumulant function).
 * Each position contributes exp(λ·(logprob − mean) − ψ(λ)) with λ < 0: a factor whose expectation
 * is exactly 1 when the token was drawn from the tempered distribution, whatever the prefix. Their
 * product over an answer's positions is therefore an e-value (expectation at most 1 under an
 * honest host), and an answer from another model, garbage or an answer stopped where the model
 * would not stop (the stop is a position too) makes it large. Averaging it over a few λ keeps it
 * an e-value and spares choosing one.
 *
 * Only the top alternatives are known, so the rest of the vocabulary is one outcome `other`
 * carrying the remaining probability r and the log-likelihood min(log r, lowest top logprob), and
 * tempered as if it were one token (r^(1/T)). For T ≤ 1 that gives `other` at least the mass the
 * honest tempered distribution gives the whole rest, and `other` has the largest factor, so the
 * expectation under an honest host stays at most 1; greedy (T = 0) and top-p/top-k sampling only
 * move mass to likelier tokens, which lowers it further. Temperatures above 1 are not scored.
 */
export interface ScoredPosition {
  /** The reference's log-probability of what the host produced here (the end token where it stopped). */
  logprob: number;
  /** The reference's most likely tokens here other than the end token, as log-probabilities. */
  top: readonly number[];
  /** The reference's log-probability of the end token here, when it is among its top alternatives. */
  end?: number;
  /** The host stopped here: the scored token is the end token. */
  stop?: boolean;
}

export interface EvidenceSettings {
  /**
   * The lowest temperature an answer is scored at: a greedy host on other hardware picks a near-tie's
   * other side now and then (batching and kernels are not bit-identical), which is no evidence.
   */
  temperatureFloor: number;
  /** The λ the e-value averages over: all negative. */
  lambdas: readonly number[];
  /**
   * What the answer stakes, at each position, on "the model would not have stopped here": an
   * answer that goes on loses log(1 − stake) there, one that stops where the model almost never
   * does gains about log(stake / P(stop)). Averaged over these.
   */
  stopStakes: readonly number[];
}

export const defaultEvidenceSettings: EvidenceSettings = {
  temperatureFloor: 0.3,
  lambdas: [-0.1, -0.25, -0.5],
  stopStakes: [0.001, 0.01],
};

export interface AnswerEvidence {
  /** log of the answer's e-value: 0 is no evidence, large is strong evidence of another source. */
  logE: number;
  /** Positions scored. */
  positions: number;
  /** Mean log-likelihood per position of the host's answer under the reference. */
  meanLogprob: number;
  /** What the model's own samples at the job's temperature score there, on average. */
  expectedLogprob: number;
}

interface PositionLaw {
  /** Outcomes' log-likelihoods under the reference and their tempered probabilities. */
  values: number[];
  weights: number[];
  mean: number;
}

/** The reference's tempered distribution at one position, over the top tokens and `other`. */
function positionLaw(top: readonly number[], end: number | undefined, temperature: number): PositionLaw {
  const values = top.filter((value) => Number.isFinite(value) && value <= 0);
  // Tempered by their log-probabilities; `other` by the log of the whole rest's probability.
  const scaled = values.map((value) => value / temperature);
  const rest =
    1 - values.reduce((sum, value) => sum + Math.exp(value), 0) - (end === undefined ? 0 : Math.exp(end));
  if (rest > 1e-9) {
    values.push(Math.min(Math.log(rest), ...values));
    scaled.push(Math.log(rest) / temperature);
  }
  const peak = Math.max(...scaled);
  const raw = scaled.map((value) => Math.exp(value - peak));
  const total = raw.reduce((sum, value) => sum + value, 0);
  const weights = raw.map((value) => value / total);
  const mean = values.reduce((sum, value, index) => sum + value * (weights[index] ?? 0), 0);
  return { values, weights, mean };
}

/** log of E[exp(λ·(value − mean))] under the law: the factor's normaliser. */
function cumulant(law: PositionLaw, lambda: number): number {
  const exponents = law.values.map((value) => lambda * (value - law.mean));
  const peak = Math.max(...exponents);
  const sum = exponents.reduce(
    (total, exponent, index) => total + (law.weights[index] ?? 0) * Math.exp(exponent - peak),
    0,
  );
  return peak + Math.log(sum);
}

/** The host's token as the law sees it: a token below every top alternative is `other`. */
function observedValue(position: ScoredPosition, law: PositionLaw): number {
  const lowest = Math.min(...law.values);
  const lowestTop = Math.min(...position.top);
  return position.logprob < lowestTop ? lowest : Math.max(position.logprob, lowest);
}

function logMeanExp(values: readonly number[]): number {
  const peak = Math.max(...values);
  if (!Number.isFinite(peak)) return peak;
  return peak + Math.log(values.reduce((sum, value) => sum + Math.exp(value - peak), 0) / values.length);
}

/**
 * An upper bound on the chance the model, tempered, stops at a position where the end token has
 * log-probability `end`: every other token's tempered weight is at least that of the top ones.
 */
function stopChance(end: number, top: readonly number[], temperature: number): number {
  const scaled = [end, ...top].map((value) => value / temperature);
  const peak = Math.max(...scaled);
  const total = scaled.reduce((sum, value) => sum + Math.exp(value - peak), 0);
  return Math.exp((scaled[0] ?? peak) - peak) / total;
}

/**
 * The evidence in one answer scored at `temperature` (the job's, floored); undefined when the
 * answer cannot be scored (no positions, no alternatives, a temperature above 1).
 *
 * Two bets are multiplied at each position, each fair under an honest host: on the stop (an answer
 * that goes on pays 1 − stake, one that stops is paid 1 + stake·(1 − u)/u, u the stop chance's
 * bound) and, where it went on, on the token (the λ factor above, over the tokens other than the
 * end token). The e-value is their product's mean over every (λ, stake).
 */
export function answerEvidence(
  positions: readonly ScoredPosition[],
  temperature: number,
  settings: EvidenceSettings = defaultEvidenceSettings,
): AnswerEvidence | undefined {
  if (positions.length === 0 || !(temperature <= 1)) return undefined;
  const tempered = Math.max(temperature, settings.temperatureFloor);
  const tokenSums = settings.lambdas.map(() => 0);
  const stopSums = settings.stopStakes.map(() => 0);
  let observed = 0;
  let expected = 0;
  for (const position of positions) {
    if (position.top.length === 0 || !Number.isFinite(position.logprob)) return undefined;
    if (position.stop) {
      const chance = stopChance(position.logprob, position.top, tempered);
      settings.stopStakes.forEach((stake, index) => {
        stopSums[index] = (stopSums[index] ?? 0) + Math.log1p((stake * (1 - chance)) / chance);
      });
      observed += position.logprob;
      expected += position.logprob;
      continue;
    }
    settings.stopStakes.forEach((stake, index) => {
      stopSums[index] = (stopSums[index] ?? 0) + Math.log1p(-stake);
    });
    const law = positionLaw(position.top, position.end, tempered);
    const value = observedValue(position, law);
    observed += value;
    expected += law.mean;
    settings.lambdas.forEach((lambda, index) => {
      tokenSums[index] = (tokenSums[index] ?? 0) + lambda * (value - law.mean) - cumulant(law, lambda);
    });
  }
  const pairs = tokenSums.flatMap((token) => stopSums.map((stop) => token + stop));
  return {
    logE: logMeanExp(pairs),
    positions: positions.length,
    meanLogprob: observed / positions.length,
    expectedLogprob: expected / positions.length,
  };
}
