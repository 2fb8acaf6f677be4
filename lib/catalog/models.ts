import type { CentralizedUpstreamName } from "../env";

/** A centralized price in USDC microunits per 1M tokens. */
export interface CatalogPrice {
  provider: CentralizedUpstreamName;
  upstreamModelId: string;
  inputPer1m: bigint;
  outputPer1m: bigint;
  cacheReadPer1m: bigint;
  cacheWritePer1m: bigint;
}

/** What a model can be asked for; a request for something it lacks is refused before any upstream call. */
export interface ModelCapabilities {
  tools: boolean;
  vision: boolean;
  reasoning: boolean;
  /** Native structured output (OpenAI json_schema, Anthropic output_config.format). */
  structuredOutput: boolean;
}

export type ModelKind = "chat" | "embedding";

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
