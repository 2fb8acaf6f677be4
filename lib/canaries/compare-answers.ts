/**
 * How alike two answers are: the F1 overlap of their words (lower-cased letters and digits),
 * from 0 (no word in common) to 1 (the same words as often). At temperature 0 the same weights
 * give the same or nearly the same words; another model rarely does beyond a short factual reply.
 */
export function answerSimilarity(a: string, b: string): number {
  const left = words(a);
  const right = words(b);
  if (left.length === 0 && right.length === 0) return 1;
  if (left.length === 0 || right.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const word of left) counts.set(word, (counts.get(word) ?? 0) + 1);
  let common = 0;
  for (const word of right) {
    const left = counts.get(word) ?? 0;
    if (left > 0) {
      common += 1;
      counts.set(word, left - 1);
    }
  }
  const precision = common / right.length;
  const recall = common / left.length;
  return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Below this similarity to the reference, a canary answer fails. */
export const similarityThreshold = 0.5;
