import type { CentralizedUpstreamName } from "../env";
import type { TokenPrice } from "../pricing/cost";
import type { ImageRates } from "../pricing/image-price";

/**
 * A centralized price in USDC microunits: per 1M tokens, or per request (`requestPrice`, token
 * rates zero), or per image for an image model (`images`, token rates zero).
 */
export interface CatalogPrice extends TokenPrice {
  provider: CentralizedUpstreamName;
  upstreamModelId: string;
  images?: ImageRates | undefined;
}

/** What a model can be asked for; a request for something it lacks is refused before any upstream call. */
export interface ModelCapabilities {
  tools: boolean;
  vision: boolean;
  reasoning: boolean;
  /** Native structured output (OpenAI json_schema, Anthropic output_config.format). */
  structuredOutput: boolean;
}

export type ModelKind = "chat" | "embedding" | "image";

export const modelKinds: readonly ModelKind[] = ["chat", "embedding", "image"];

export interface CatalogModel {
  id: string;
  ownedBy: string;
  /** A display name, where the source gives one. */
  name?: string;
  kind: ModelKind;
  contextWindow: number;
  maxOutputTokens: number;
  inputModalities: string[];
  outputModalities: string[];
  /** Other spellings clients send for this model (vendor prefixes, dated snapshots). */
  aliases: string[];
  prices: CatalogPrice[];
  capabilities: ModelCapabilities;
  /** Served without the provider's content filtering; clients of the reference feed filter on it. */
  uncensored?: boolean;
}
