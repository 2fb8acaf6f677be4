import type { CentralizedUpstreamName } from "../env";
import type { ImageRate } from "../pricing/image-price";
import type { CatalogModel, CatalogPrice } from "./models";

interface Rate {
  input: number;
  output: number;
  /** Published cache rates; without one, cached tokens bill as plain input. */
  read?: number;
  write?: number;
}

const price = (provider: CentralizedUpstreamName, upstreamModelId: string, rate: Rate): CatalogPrice => ({
  provider,
  upstreamModelId,
  inputPer1m: BigInt(rate.input),
  outputPer1m: BigInt(rate.output),
  cacheReadPer1m: BigInt(rate.read ?? rate.input),
  cacheWritePer1m: BigInt(rate.write ?? rate.input),
});

/** A vendor's own model resold by OpenRouter at the vendor's list price, under OpenRouter's spelling. */
const directAndOpenRouter = (
  vendor: "openai" | "anthropic",
  upstreamModelId: string,
  openRouterId: string,
  rate: Rate,
): CatalogPrice[] => [price(vendor, upstreamModelId, rate), price("openrouter", openRouterId, rate)];

interface ChatSpec {
  ownedBy: string;
  /** [context window, max output tokens] */
  limits: [number, number];
  /** Image input; every chat addition takes tools, these three are what differ. */
  vision: boolean;
  reasoning: boolean;
  structuredOutput: boolean;
  aliases: string[];
  prices: CatalogPrice[];
}

const chatModel = (id: string, spec: ChatSpec): CatalogModel => ({
  id,
  ownedBy: spec.ownedBy,
  kind: "chat",
  contextWindow: spec.limits[0],
  maxOutputTokens: spec.limits[1],
  inputModalities: spec.vision ? ["text", "image"] : ["text"],
  outputModalities: ["text"],
  aliases: spec.aliases,
  prices: spec.prices,
  capabilities: {
    tools: true,
    vision: spec.vision,
    reasoning: spec.reasoning,
    structuredOutput: spec.structuredOutput,
  },
});

/** OpenAI's embedding models: sold direct and through OpenRouter, input tokens only. */
const openAiEmbedding = (id: string, inputPer1m: number): CatalogModel => ({
  id,
  ownedBy: "openai",
  kind: "embedding",
  contextWindow: 8191,
  maxOutputTokens: 0,
  inputModalities: ["text"],
  outputModalities: ["embedding"],
  aliases: [`openai/${id}`],
  prices: directAndOpenRouter("openai", id, `openai/${id}`, { input: inputPer1m, output: 0 }),
  capabilities: { tools: false, vision: false, reasoning: false, structuredOutput: false },
});

/** An OpenAI chat model: vision and structured output, no reasoning, OpenRouter as `openai/<id>`. */
const openAiChat = (id: string, limits: [number, number], datedAliases: string[], rate: Rate) =>
  chatModel(id, {
    ownedBy: "openai",
    limits,
    vision: true,
    reasoning: false,
    structuredOutput: true,
    aliases: [`openai/${id}`, ...datedAliases],
    prices: directAndOpenRouter("openai", id, `openai/${id}`, rate),
  });

/**
 * An Anthropic chat model: vision, reasoning and structured output. OpenRouter spells the
 * version with a dot (`anthropic/claude-haiku-4.5`); clients send both spellings.
 */
const anthropicChat = (id: string, openRouterId: string, dated: string, rate: Rate) =>
  chatModel(id, {
    ownedBy: "anthropic",
    limits: [200_000, 64_000],
    vision: true,
    reasoning: true,
    structuredOutput: true,
    aliases: [openRouterId, `anthropic/${id}`, dated],
    prices: directAndOpenRouter("anthropic", id, openRouterId, rate),
  });

/** An open-weights text model served by the open-model hosts, each at its own price. */
const openWeightsChat = (
  id: string,
  ownedBy: string,
  limits: [number, number],
  aliases: string[],
  prices: CatalogPrice[],
) =>
  chatModel(id, {
    ownedBy,
    limits,
    vision: false,
    reasoning: false,
    structuredOutput: false,
    aliases,
    prices,
  });

/** `[quality, size, microunits]`, the headline (default size and quality) first. */
type ImageRow = [string, string, number];

const imageRates = (rows: ImageRow[]): ImageRate[] =>
  rows.map(([quality, size, microunits]) => ({ quality, size, microunits: BigInt(microunits) }));

/**
 * An OpenAI image model, sold per image by size and quality (the dataset has no per-image
 * prices). Source: OpenAI's published image prices (platform.openai.com/docs/pricing, "Image
 * generation"), dollars per image → microunits. gpt-image-1's per-image figures are OpenAI's
 * own per-image rendering of its output tokens; its prompt and input-image tokens are billed
 * by OpenAI on top and not passed on here (see the images docs page).
 */
const openAiImage = (id: string, generate: ImageRow[], editable: boolean): CatalogModel => ({
  id,
  ownedBy: "openai",
  kind: "image",
  contextWindow: 0,
  maxOutputTokens: 0,
  inputModalities: editable ? ["text", "image"] : ["text"],
  outputModalities: ["image"],
  aliases: [`openai/${id}`],
  prices: [
    {
      provider: "openai",
      upstreamModelId: id,
      inputPer1m: 0n,
      outputPer1m: 0n,
      cacheReadPer1m: 0n,
      cacheWritePer1m: 0n,
      images: { generate: imageRates(generate), edit: editable ? imageRates(generate) : [] },
    },
  ],
  capabilities: { tools: false, vision: editable, reasoning: false, structuredOutput: false },
});

/**
 * Models the gateway ships beyond the dataset (whose snapshot predates them), with their
 * published prices: seeded at first start beside the dataset, then data like every other row.
 */
export const gatewayAdditions: CatalogModel[] = [
  openAiChat("gpt-4o-mini", [128_000, 16_384], ["gpt-4o-mini-2024-07-18"], {
    input: 150_000,
    output: 600_000,
    read: 75_000,
  }),
  openAiChat("gpt-4o", [128_000, 16_384], ["gpt-4o-2024-11-20", "gpt-4o-2024-08-06"], {
    input: 2_500_000,
    output: 10_000_000,
    read: 1_250_000,
  }),
  openAiChat("gpt-4.1-mini", [1_047_576, 32_768], ["gpt-4.1-mini-2025-04-14"], {
    input: 400_000,
    output: 1_600_000,
    read: 100_000,
  }),
  anthropicChat("claude-haiku-4-5", "anthropic/claude-haiku-4.5", "claude-haiku-4-5-20251001", {
    input: 1_000_000,
    output: 5_000_000,
    read: 100_000,
    write: 1_250_000,
  }),
  anthropicChat("claude-sonnet-4-5", "anthropic/claude-sonnet-4.5", "claude-sonnet-4-5-20250929", {
    input: 3_000_000,
    output: 15_000_000,
    read: 300_000,
    write: 3_750_000,
  }),
  openWeightsChat(
    "llama-3.3-70b-instruct",
    "meta",
    [131_072, 32_768],
    [
      "meta-llama/llama-3.3-70b-instruct",
      "llama-3.3-70b",
      "llama-3.3-70b-versatile",
      "meta-llama/Llama-3.3-70B-Instruct-Turbo",
    ],
    [
      price("openrouter", "meta-llama/llama-3.3-70b-instruct", { input: 130_000, output: 400_000 }),
      price("groq", "llama-3.3-70b-versatile", { input: 590_000, output: 790_000 }),
      price("together", "meta-llama/Llama-3.3-70B-Instruct-Turbo", { input: 880_000, output: 880_000 }),
      price("venice", "llama-3.3-70b", { input: 700_000, output: 2_800_000 }),
    ],
  ),
  openWeightsChat(
    "deepseek-v3",
    "deepseek",
    [128_000, 8_192],
    ["deepseek/deepseek-chat", "deepseek-chat", "deepseek-ai/DeepSeek-V3"],
    [
      price("openrouter", "deepseek/deepseek-chat", { input: 270_000, output: 1_100_000 }),
      price("together", "deepseek-ai/DeepSeek-V3", { input: 1_250_000, output: 1_250_000 }),
    ],
  ),
  openAiEmbedding("text-embedding-3-small", 20_000),
  openAiEmbedding("text-embedding-3-large", 130_000),
  openAiImage(
    "dall-e-2",
    [
      ["standard", "1024x1024", 20_000],
      ["standard", "512x512", 18_000],
      ["standard", "256x256", 16_000],
    ],
    true,
  ),
  openAiImage(
    "dall-e-3",
    [
      ["standard", "1024x1024", 40_000],
      ["standard", "1024x1792", 80_000],
      ["standard", "1792x1024", 80_000],
      ["hd", "1024x1024", 80_000],
      ["hd", "1024x1792", 120_000],
      ["hd", "1792x1024", 120_000],
    ],
    false,
  ),
  openAiImage(
    "gpt-image-1",
    [
      ["medium", "1024x1024", 42_000],
      ["low", "1024x1024", 11_000],
      ["low", "1024x1536", 16_000],
      ["low", "1536x1024", 16_000],
      ["medium", "1024x1536", 63_000],
      ["medium", "1536x1024", 63_000],
      ["high", "1024x1024", 167_000],
      ["high", "1024x1536", 250_000],
      ["high", "1536x1024", 250_000],
    ],
    true,
  ),
];
