/**
 * What a model can do, for rows of a price list that does not say: tool calling, reasoning,
 * modalities and the output limit, read from models.dev's full rows (any provider's) and
 * matched to a model by id, then by family.
 */
export interface ModelTraits {
  tools: boolean;
  reasoning: boolean;
  inputModalities: string[];
  outputModalities: string[];
  /** Undefined when no row describes the model or its family. */
  maxOutputTokens: number | undefined;
  /** How the traits were found: the model's own row, a sibling of its family, or nothing. */
  matched: "id" | "family" | "none";
}

/**
 * A model no row describes: text in and out, tool calling assumed (nearly every chat model
 * these upstreams sell has it, and one that lacks it answers the upstream's own 400), no
 * vision or reasoning claimed.
 */
const unknownTraits: ModelTraits = {
  tools: true,
  reasoning: false,
  inputModalities: ["text"],
  outputModalities: ["text"],
  maxOutputTokens: undefined,
  matched: "none",
};

interface Described {
  provider: string;
  released: string;
  traits: ModelTraits;
}

const recordOf = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string").slice(0, 8) : [];

/**
 * `anthropic/claude-sonnet-4.5-20250929:thinking` → `claude-sonnet-4-5`: the model's own name,
 * without vendor, snapshot date or variant, in one spelling of its version.
 */
export function modelSlug(id: string): string {
  return id
    .slice(id.lastIndexOf("/") + 1)
    .toLowerCase()
    .replace(/:.*$/, "")
    .replace(/-(?:\d{8}|\d{4}-\d{2}-\d{2}|\d{4})$/, "")
    .replace(/[._\s]+/g, "-");
}

/**
 * `claude-sonnet-4-5` → `claude-sonnet`, `qwen3.7-max` → `qwen-max`, `gpt-4o-mini` → `gpt-mini`:
 * the slug with its version and size numbers cut, which names the line a new release joins.
 */
export function modelFamily(slug: string): string {
  return slug
    .split("-")
    .map((part) => part.replace(/\d.*$/, ""))
    .filter((part) => part.length > 0)
    .join("-");
}

function traitsFromRow(row: Record<string, unknown>): ModelTraits | undefined {
  if (typeof row.tool_call !== "boolean") return undefined;
  const modalities = recordOf(row.modalities);
  const input = strings(modalities.input);
  const output = strings(modalities.output);
  const limit = recordOf(row.limit);
  return {
    tools: row.tool_call,
    reasoning: row.reasoning === true,
    inputModalities: input.length > 0 ? input : ["text"],
    outputModalities: output.length > 0 ? output : ["text"],
    maxOutputTokens:
      typeof limit.output === "number" && Number.isFinite(limit.output) && limit.output > 0
        ? Math.floor(limit.output)
        : undefined,
    matched: "id",
  };
}

/** Prefer the asking provider's own row, then the most recent release. */
function better(candidate: Described, current: Described | undefined, provider: string): boolean {
  if (!current) return true;
  const own = (entry: Described) => (entry.provider === provider ? 1 : 0);
  return (
    own(candidate) - own(current) > 0 ||
    (own(candidate) === own(current) && candidate.released > current.released)
  );
}

/**
 * An index over models.dev provider blocks (`{ id, models: { … } }`): for a provider's model id,
 * the traits of the same id at that provider, else of the same slug at any provider, else of
 * the newest sibling of its family (also with a leading vendor word dropped, as Venice spells
 * `openai-gpt-5-pro`), else `unknownTraits`.
 */
export function traitsIndex(blocks: readonly unknown[]): (provider: string, modelId: string) => ModelTraits {
  const own = new Map<string, ModelTraits>();
  const bySlug = new Map<string, Described[]>();
  const byFamily = new Map<string, Described[]>();
  const add = (map: Map<string, Described[]>, key: string, described: Described) => {
    const list = map.get(key);
    if (list) list.push(described);
    else map.set(key, [described]);
  };
  for (const rawBlock of blocks) {
    const block = recordOf(rawBlock);
    const provider = typeof block.id === "string" ? block.id : "";
    for (const [key, rawRow] of Object.entries(recordOf(block.models))) {
      const row = recordOf(rawRow);
      const traits = traitsFromRow(row);
      if (!traits) continue;
      const id = typeof row.id === "string" ? row.id : key;
      const released = typeof row.release_date === "string" ? row.release_date : "";
      own.set(`${provider}\n${id.toLowerCase()}`, traits);
      const slug = modelSlug(id);
      add(bySlug, slug, { provider, released, traits });
      add(byFamily, modelFamily(slug), { provider, released, traits });
    }
  }
  const pick = (list: Described[] | undefined, provider: string): Described | undefined => {
    let best: Described | undefined;
    for (const entry of list ?? []) if (better(entry, best, provider)) best = entry;
    return best;
  };
  return (provider, modelId) => {
    const exact = own.get(`${provider}\n${modelId.toLowerCase()}`);
    if (exact) return exact;
    const slug = modelSlug(modelId);
    const sameModel = pick(bySlug.get(slug), provider);
    if (sameModel) return sameModel.traits;
    const family = modelFamily(slug);
    const withoutVendor = family.slice(family.indexOf("-") + 1);
    const sibling =
      pick(byFamily.get(family), provider) ??
      (withoutVendor !== family && withoutVendor.includes("-")
        ? pick(byFamily.get(withoutVendor), provider)
        : undefined);
    return sibling ? { ...sibling.traits, matched: "family" } : unknownTraits;
  };
}
