import type { CatalogIndex } from "./catalog-index";
import type { CatalogModel } from "./models";

const datedSuffix = /-(?:\d{8}|\d{4}-\d{2}-\d{2}|latest)$/i;

export function spellings(modelId: string): string[] {
  const trimmed = modelId.trim();
  const bases = [trimmed, trimmed.slice(trimmed.lastIndexOf("/") + 1)];
  const out: string[] = [];
  for (const base of bases) {
    for (const undated of [base, base.replace(datedSuffix, "")]) {
      // `claude-haiku-4.5` and `claude-haiku-4-5` are one model; only dots between digits change.
      for (const spelling of [undated, undated.replace(/(\d)\.(\d)/g, "$1-$2")]) {
        if (spelling !== "" && !out.includes(spelling)) out.push(spelling);
      }
    }
  }
  return out;
}

/**
 * Maps what a caller or a listing calls a model to its canonical catalog model: the exact
 * id or a catalog alias first, then the same without a vendor prefix (`openai/…`), without a
 * date or `-latest` suffix, and with `4.5`-style versions spelled `4-5`.
 */
export function resolveModel(catalog: CatalogIndex, modelId: string): CatalogModel | undefined {
  // The exact id is what almost every request sends: no spellings to build for it.
  const exact = catalog.resolve(modelId);
  if (exact) return exact;
  for (const spelling of spellings(modelId)) {
    const model = catalog.resolve(spelling);
    if (model) return model;
  }
  return undefined;
}
