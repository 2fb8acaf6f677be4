import type { CentralizedUpstreamName } from "../env";
import type { ImageRates } from "../pricing/image-price";
import type { ModelCapabilities, ModelKind } from "./models";

/**
 * One model as one provider sells it, from any source (the shipped dataset, an upstream's
 * model list, the dataset's live source): what merging into the catalog starts from.
 * Prices are microunits per 1M tokens; a per-request price (`requestPrice`) or an image
 * model's per-image rates (`images`) come with token rates of zero.
 */
export interface CatalogEntry {
  provider: CentralizedUpstreamName;
  upstreamModelId: string;
  name: string | undefined;
  ownedBy: string;
  kind: ModelKind;
  contextWindow: number;
  maxOutputTokens: number;
  inputModalities: string[];
  outputModalities: string[];
  capabilities: ModelCapabilities;
  inputPer1m: bigint;
  outputPer1m: bigint;
  cacheReadPer1m: bigint;
  cacheWritePer1m: bigint;
  requestPrice?: bigint | undefined;
  images?: ImageRates | undefined;
  /** The gateway's own additions name their model and its aliases; other sources leave it to merging. */
  modelId?: string;
  aliases?: string[];
  uncensored?: boolean;
}

/** The largest price or limit a source may state: anything past it is a broken row, skipped. */
export const maxPricePer1m = 1_000_000_000_000n;
const maxTokens = 100_000_000;

/** A token limit from outside, bounded; 0 or less is unknown. */
export function boundedTokens(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0
    ? Math.min(Math.floor(value), maxTokens)
    : fallback;
}

/**
 * A decimal price in dollars (per token or per 1M tokens) → microunits per 1M tokens,
 * exactly: `scale` is the power of ten from the unit given to microunits per 1M (12 for
 * dollars per token, 6 for dollars per 1M). Undefined for a negative, malformed or absurd value.
 */
export function decimalToMicrounits(value: unknown, scale: number): bigint | undefined {
  const text = typeof value === "number" ? value.toFixed(12) : typeof value === "string" ? value.trim() : "";
  const match = /^(\d{1,15})(?:\.(\d{1,20}))?$/.exec(text);
  if (!match?.[1]) return undefined;
  const fraction = (match[2] ?? "").padEnd(scale, "0");
  const whole = BigInt(match[1] + fraction.slice(0, scale));
  // Round a fraction of a microunit up: a price is never read as cheaper than stated.
  const rest = fraction.slice(scale).replace(/0+$/, "");
  const micro = rest === "" ? whole : whole + 1n;
  return micro <= maxPricePer1m ? micro : undefined;
}

export type EntryPrices = Pick<
  CatalogEntry,
  "inputPer1m" | "outputPer1m" | "cacheReadPer1m" | "cacheWritePer1m"
>;

/**
 * A source's stated prices in microunits per 1M tokens (`scale` as for decimalToMicrounits).
 * Undefined for an unreadable or negative price (OpenRouter's "-1": a router, priced per
 * request) and for a free row: neither is sold. An unstated cache rate bills as plain input.
 */
export function soldPrices(
  stated: { input: unknown; output: unknown; cacheRead?: unknown; cacheWrite?: unknown },
  scale: number,
): EntryPrices | undefined {
  const input = decimalToMicrounits(stated.input, scale);
  const output = decimalToMicrounits(stated.output, scale);
  if (input === undefined || output === undefined || input + output === 0n) return undefined;
  return {
    inputPer1m: input,
    outputPer1m: output,
    cacheReadPer1m: decimalToMicrounits(stated.cacheRead, scale) ?? input,
    cacheWritePer1m: decimalToMicrounits(stated.cacheWrite, scale) ?? input,
  };
}

/** `vendor/model` → `vendor`; an id without a vendor prefix is the listing host's own. */
export function ownerOf(upstreamModelId: string, host: string): string {
  const slash = upstreamModelId.indexOf("/");
  return slash > 0 ? upstreamModelId.slice(0, slash).toLowerCase() : host;
}

/** `vendor/model-2025-01-01` → `model`: the canonical id a new model is created under. */
export function canonicalModelId(upstreamModelId: string): string {
  const slug = upstreamModelId.slice(upstreamModelId.indexOf("/") + 1).toLowerCase();
  return slug.replace(/-(?:\d{8}|\d{4}-\d{2}-\d{2})$/, "");
}
