import { distance } from "fastest-levenshtein";
import type { CatalogModel } from "./models";
import { spellings } from "./resolve-model";

/** How many close ids a 404 names at most. */
const maxSuggestions = 3;
/** Below this score an id is not close enough to suggest (a guess that misleads is worse than none). */
const minScore = 0.55;

/** `claude-3-5-haiku` → claude, 3, 5, haiku: ids are compared by their parts as well as by their letters. */
function partsOf(id: string): string[] {
  return id
    .toLowerCase()
    .split(/[-_./:\s]+/)
    .filter((part) => part !== "");
}

/** A family or size word (`haiku`, `mini`, `4o`) says more about which model is meant than a version digit. */
function weightOf(part: string): number {
  return /^\d+$/.test(part) ? 1 : 2;
}

/** 1 for the same part, partial credit for a typo in a word part (`mnii` for `mini`), none for another number. */
function partSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  if (/^\d+$/.test(a) || /^\d+$/.test(b) || Math.min(a.length, b.length) < 3) return 0;
  return Math.max(0, 1 - distance(a, b) / Math.max(a.length, b.length));
}

/**
 * A weighted Dice coefficient over the ids' parts, each query part matched to its most similar
 * part of the candidate: `claude-3-5-haiku` is nearer `claude-haiku-4-5` (family and maker
 * shared) than `claude-sonnet-4-5` (maker and a digit shared).
 */
function partsScore(query: string[], candidate: string[]): number {
  const total = [...query, ...candidate].reduce((sum, part) => sum + weightOf(part), 0);
  if (total === 0) return 0;
  const free = [...candidate];
  let shared = 0;
  for (const part of query) {
    let best = 0;
    let bestIndex = -1;
    free.forEach((other, index) => {
      const similarity = partSimilarity(part, other);
      if (similarity > best) {
        best = similarity;
        bestIndex = index;
      }
    });
    if (bestIndex < 0) continue;
    shared += best * Math.min(weightOf(part), weightOf(free[bestIndex] ?? part));
    free.splice(bestIndex, 1);
  }
  return (2 * shared) / total;
}

/** Half letters (typos), half parts (reordered or renamed versions). */
function closeness(query: string, candidate: string): number {
  const a = query.toLowerCase();
  const b = candidate.toLowerCase();
  const letters = 1 - distance(a, b) / Math.max(a.length, b.length, 1);
  return (letters + partsScore(partsOf(a), partsOf(b))) / 2;
}

/**
 * Up to three models whose id or alias is close to what the caller typed, closest first (an
 * unknown id's 404 names them). The query is compared in each of its spellings (without a
 * vendor prefix or a `-latest`/date suffix), against every id and alias, and a model counts once.
 */
export function suggestModels(models: readonly CatalogModel[], modelId: string): string[] {
  const queries = spellings(modelId.slice(0, 200));
  if (queries.length === 0) return [];
  const scored: { id: string; score: number }[] = [];
  for (const model of models) {
    let score = 0;
    for (const name of [model.id, ...model.aliases])
      for (const query of queries) score = Math.max(score, closeness(query, name));
    if (score >= minScore) scored.push({ id: model.id, score });
  }
  return scored
    .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
    .slice(0, maxSuggestions)
    .map((entry) => entry.id);
}
