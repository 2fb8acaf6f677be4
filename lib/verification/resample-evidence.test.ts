import { describe, expect, it } from "vitest";
import { seededRandom } from "../../tests/helpers/seeded-random";
import { answerSimilarity, resampleEvidence } from "./resample-evidence";

const vocabulary = ["tide", "moon", "sea", "pull", "water", "shore", "high", "low", "twice", "day"];

function sentence(random: () => number, length: number): string {
  return Array.from({ length }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(" ");
}

/** The e-value averaged over which of `texts` is the host's: its expectation when they are exchangeable. */
function meanOverPositions(texts: readonly string[]): number {
  let sum = 0;
  for (let index = 0; index < texts.length; index += 1) {
    const others = texts.filter((_, other) => other !== index);
    sum += resampleEvidence(texts[index] ?? "", others)?.eValue ?? Number.NaN;
  }
  return sum / texts.length;
}

describe("answer similarity", () => {
  it("is 1 for the same words, 0 for none shared, and symmetric", () => {
    expect(answerSimilarity("The tide is high.", "the tide is HIGH")).toBe(1);
    expect(answerSimilarity("tide moon sea", "apple pear plum")).toBe(0);
    const a = "the moon pulls the sea twice a day";
    const b = "twice a day the sea follows the moon";
    expect(answerSimilarity(a, b)).toBeCloseTo(answerSimilarity(b, a), 12);
    expect(answerSimilarity(a, b)).toBeGreaterThan(0);
    expect(answerSimilarity(a, b)).toBeLessThan(1);
  });
});

describe("resampled evidence", () => {
  it("has expectation exactly 1 over every placement of the host's answer among exchangeable ones, ties included", () => {
    const random = seededRandom(31);
    for (let trial = 0; trial < 200; trial += 1) {
      const count = 2 + Math.floor(random() * 8);
      const texts = Array.from({ length: count }, () => sentence(random, 1 + Math.floor(random() * 6)));
      // Repeated answers (a greedy model's) and empty ones tie: they share the evidence.
      if (trial % 3 === 0) texts[1] = texts[0] ?? "";
      if (trial % 7 === 0) texts.fill("tide moon");
      if (trial % 11 === 0) texts[0] = "";
      expect(meanOverPositions(texts)).toBeCloseTo(1, 12);
    }
  });

  it("keeps an honest host's evidence fair when its answer is drawn like the reference's samples", () => {
    const random = seededRandom(7);
    let total = 0;
    const trials = 4000;
    for (let trial = 0; trial < trials; trial += 1) {
      const draw = () => sentence(random, 3 + Math.floor(random() * 4));
      total += resampleEvidence(draw(), [draw(), draw(), draw(), draw()])?.eValue ?? 0;
    }
    // Mean of 4,000 draws of a variable in [0, 5] with mean 1: within 0.15 of it (about 4 standard errors).
    expect(Math.abs(total / trials - 1)).toBeLessThan(0.15);
  });

  it("makes an answer unlike samples that agree with each other the odd one out: evidence k + 1", () => {
    const samples = [
      "The moon's pull raises the sea twice a day.",
      "The moon pulls the sea, raising it twice a day.",
      "Twice a day the moon's pull raises the sea.",
      "The sea rises twice a day under the moon's pull.",
    ];
    const garbage = resampleEvidence("purple seventeen lantern gravel", samples);
    expect(garbage).toMatchObject({ eValue: 5, rank: 1, samples: 4 });
    expect(garbage?.hostSimilarity).toBeLessThan(garbage?.referenceSimilarity ?? 0);
    const honest = resampleEvidence("The moon's pull raises the sea twice each day.", samples);
    expect(honest?.eValue).toBe(0);
    expect(honest?.logE).toBe(Number.NEGATIVE_INFINITY);
    expect(resampleEvidence("anything", [])).toBeUndefined();
  });
});
