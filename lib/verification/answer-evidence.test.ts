import { describe, expect, it } from "vitest";
import { answerEvidence, type ScoredPosition } from "./answer-evidence";

/** A seeded distribution over `size` tokens (index 0 is the end token), as log-probabilities. */
function distribution(seed: number, size: number, spread: number): number[] {
  let state = seed;
  const next = () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 4_294_967_296;
  };
  const logits = Array.from({ length: size }, () => spread * (next() - 0.5) * 4);
  const peak = Math.max(...logits);
  const total = Math.log(logits.reduce((sum, value) => sum + Math.exp(value - peak), 0)) + peak;
  return logits.map((value) => value - total);
}

/** What the reference returns at a position: the top `k` alternatives, the end token's when among them. */
function view(logprobs: readonly number[], token: number, k: number): ScoredPosition {
  const ranked = logprobs.map((logprob, index) => ({ logprob, index })).sort((a, b) => b.logprob - a.logprob);
  const top = ranked.slice(0, k);
  const end = top.find((entry) => entry.index === 0)?.logprob;
  return {
    logprob: logprobs[token] ?? Number.NEGATIVE_INFINITY,
    top: top.filter((entry) => entry.index !== 0).map((entry) => entry.logprob),
    ...(end === undefined ? {} : { end }),
    ...(token === 0 ? { stop: true } : {}),
  };
}

/** The tempered distribution an honest host samples from. */
function tempered(logprobs: readonly number[], temperature: number): number[] {
  const weights = logprobs.map((value) => Math.exp(value / temperature));
  const total = weights.reduce((sum, value) => sum + value, 0);
  return weights.map((value) => value / total);
}

describe("answer evidence", () => {
  // The defence: an honest host is never blamed beyond chance. Exactly, not by sampling: the
  // expectation of a one-position e-value over every token the honest host could produce.
  it("has expectation at most 1 under an honest host, at every temperature, top-k and spread", () => {
    let checked = 0;
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      for (const spread of [0.5, 2, 4]) {
        const logprobs = distribution(seed, 40, spread);
        for (const temperature of [0, 0.3, 0.7, 1]) {
          for (const k of [1, 5, 20]) {
            const probabilities =
              temperature === 0
                ? logprobs.map((value) => (value === Math.max(...logprobs) ? 1 : 0))
                : tempered(logprobs, temperature);
            const expectation = probabilities.reduce((sum, probability, token) => {
              if (probability === 0) return sum;
              const evidence = answerEvidence([view(logprobs, token, k)], temperature);
              return sum + probability * Math.exp(evidence?.logE ?? 0);
            }, 0);
            expect(expectation).toBeLessThanOrEqual(1 + 1e-9);
            checked += 1;
          }
        }
      }
    }
    expect(checked).toBe(8 * 3 * 4 * 3);
  });

  it("finds an answer of unlikely tokens and an early stop, and not the model's own likeliest answer", () => {
    const logprobs = distribution(11, 40, 6);
    const ranked = logprobs
      .map((logprob, index) => ({ logprob, index }))
      .sort((a, b) => b.logprob - a.logprob);
    const likeliest = ranked.find((entry) => entry.index !== 0)?.index ?? 1;
    const unlikely = ranked.at(-1)?.index ?? 1;
    const honest = answerEvidence(
      Array.from({ length: 50 }, () => view(logprobs, likeliest, 5)),
      0.7,
    );
    const garbage = answerEvidence(
      Array.from({ length: 50 }, () => view(logprobs, unlikely, 5)),
      0.7,
    );
    expect(honest?.logE).toBeLessThan(0);
    expect(garbage?.logE).toBeGreaterThan(20);
    expect(garbage?.meanLogprob).toBeLessThan(garbage?.expectedLogprob ?? 0);
    // An end token the model gives almost no chance, after a few likely tokens.
    const withEnd = [...logprobs];
    withEnd[0] = -12;
    const stopped = answerEvidence(
      [...Array.from({ length: 5 }, () => view(withEnd, likeliest, 5)), view(withEnd, 0, 5)],
      0.7,
    );
    expect(stopped?.logE).toBeGreaterThan(3);
  });

  it("scores nothing above temperature 1, nor an empty answer", () => {
    const logprobs = distribution(3, 10, 1);
    expect(answerEvidence([view(logprobs, 2, 5)], 1.2)).toBeUndefined();
    expect(answerEvidence([], 0.7)).toBeUndefined();
  });
});
