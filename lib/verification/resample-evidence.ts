/**
 * How much one answer says against "the host sampled this from the model it announced" when the
 * reference offers no log-probabilities: the reference answers the same request again, `k` times
 * at the job's temperature, and the host's answer is compared with those samples.
 *
 * Under an honest host its answer and the reference's k samples are k + 1 draws of the same
 * sampler, so they are exchangeable: whatever the prompt, the temperature or the similarity used,
 * the host's answer is the odd one out (the least like the others) with probability 1/(k + 1).
 * The e-value is k + 1 when it is the odd one out and 0 otherwise (ties share: (k + 1)/m for one
 * of m tied at the top): its expectation under an honest host is exactly 1, and how far an
 * honest answer is from the samples is judged only against how far the samples are from each
 * other, never against a fixed threshold. The price of needing no log-probabilities: one answer
 * is evidence of at most k + 1, where a teacher-forced score of the same answer can be
 * evidence of millions (./answer-evidence.ts); the detector needs more checked answers.
 *
 * The similarity is lexical (answerSimilarity below), symmetric and computed the same way for
 * every pair, which is all the exchangeability argument asks of it; how well it tells a
 * substitute from the model only moves the power, never the false-alarm bound.
 */
export interface ResampleEvidence {
  /** log of the answer's e-value (−Infinity when the answer is not the odd one out). */
  logE: number;
  /** The e-value: 0, or (k + 1)/m when the answer is one of m tied as the odd one out. */
  eValue: number;
  /** The reference's samples compared. */
  samples: number;
  /** Mean similarity of the host's answer to the samples (0 to 1). */
  hostSimilarity: number;
  /** Mean similarity of the samples to each other: what an honest answer's looks like. */
  referenceSimilarity: number;
  /** Among the k + 1 answers, how many are at least as unlike the others as the host's (1: the odd one out). */
  rank: number;
}

/** n-gram lengths compared: single words, pairs and triples. */
const gramLengths = [1, 2, 3];
/** Similarities this close are one value: float rounding must not break a tie. */
const tieTolerance = 1e-12;

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function grams(tokens: readonly string[], length: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let index = 0; index + length <= tokens.length; index += 1) {
    const gram = tokens.slice(index, index + length).join(" ");
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}

function overlap(a: Map<string, number>, b: Map<string, number>): number {
  let sizeA = 0;
  let sizeB = 0;
  let shared = 0;
  for (const count of a.values()) sizeA += count;
  for (const [gram, count] of b) {
    sizeB += count;
    shared += Math.min(count, a.get(gram) ?? 0);
  }
  if (sizeA + sizeB === 0) return 1;
  return (2 * shared) / (sizeA + sizeB);
}

/** The share of the longer word sequence that both begin with: the same opening. */
function commonStart(a: readonly string[], b: readonly string[]): number {
  const longer = Math.max(a.length, b.length);
  if (longer === 0) return 1;
  let index = 0;
  while (index < Math.min(a.length, b.length) && a[index] === b[index]) index += 1;
  return index / longer;
}

/** The share of positions where two word sequences have the same word, over the longer one. */
function aligned(a: readonly string[], b: readonly string[]): number {
  const longer = Math.max(a.length, b.length);
  if (longer === 0) return 1;
  let same = 0;
  for (let index = 0; index < Math.min(a.length, b.length); index += 1) if (a[index] === b[index]) same += 1;
  return same / longer;
}

/**
 * How alike two answers are, 0 to 1, symmetric: the mean of three shares, over words: of the
 * longer answer both begin with (the same opening: samples at a low temperature share long
 * ones), of positions with the same word (the same wording in place), and the n-gram overlap
 * (F1 of the n-gram multisets, averaged over n = 1, 2, 3: the same words and phrases anywhere).
 */
export function answerSimilarity(a: string, b: string): number {
  const wordsA = words(a);
  const wordsB = words(b);
  const scores = gramLengths.map((length) => overlap(grams(wordsA, length), grams(wordsB, length)));
  const phrases = scores.reduce((sum, score) => sum + score, 0) / scores.length;
  return (commonStart(wordsA, wordsB) + aligned(wordsA, wordsB) + phrases) / 3;
}

/**
 * The evidence in `answer` against the reference's `samples` of the same request; undefined
 * with no sample to compare with. `similarity` must be symmetric (it is applied to every pair).
 */
export function resampleEvidence(
  answer: string,
  samples: readonly string[],
  similarity: (a: string, b: string) => number = answerSimilarity,
): ResampleEvidence | undefined {
  if (samples.length === 0) return undefined;
  const texts = [answer, ...samples];
  const count = texts.length;
  const pair = texts.map(() => new Array<number>(count).fill(0));
  for (let i = 0; i < count; i += 1)
    for (let j = i + 1; j < count; j += 1) {
      const value = similarity(texts[i] ?? "", texts[j] ?? "");
      (pair[i] as number[])[j] = value;
      (pair[j] as number[])[i] = value;
    }
  // Each answer's mean similarity to the k others: the lowest is the odd one out.
  const typicality = pair.map(
    (row, i) => row.reduce((sum, value, j) => sum + (j === i ? 0 : value), 0) / (count - 1),
  );
  const host = typicality[0] ?? 0;
  const rank = typicality.filter((value) => value <= host + tieTolerance).length;
  const lowest = Math.min(...typicality);
  const eValue = host <= lowest + tieTolerance ? count / rank : 0;
  let referencePairs = 0;
  for (let i = 1; i < count; i += 1)
    for (let j = i + 1; j < count; j += 1) referencePairs += pair[i]?.[j] ?? 0;
  const pairs = ((count - 1) * (count - 2)) / 2;
  return {
    logE: Math.log(eValue),
    eValue,
    samples: samples.length,
    hostSimilarity: host,
    referenceSimilarity: pairs === 0 ? 1 : referencePairs / pairs,
    rank,
  };
}
