import type { CentralizedUpstreamName } from "../env";
import type { CatalogModel, CatalogPrice, ModelCapabilities } from "./models";

const capable = (reasoning: boolean, structuredOutput: boolean, vision = true): ModelCapabilities => ({
  tools: true,
  vision,
  reasoning,
  structuredOutput,
});

const chat = (vision: boolean) => ({
  kind: "chat" as const,
  inputModalities: vision ? ["text", "image"] : ["text"],
  outputModalities: ["text"],
});

const price = (
  provider: CentralizedUpstreamName,
  upstreamModelId: string,
  inputPer1m: number,
  outputPer1m: number,
  cache: { read?: number; write?: number } = {},
): CatalogPrice => ({
  provider,
  upstreamModelId,
  inputPer1m: BigInt(inputPer1m),
  outputPer1m: BigInt(outputPer1m),
  // Without a published cache rate, cached tokens bill as plain input.
  cacheReadPer1m: BigInt(cache.read ?? inputPer1m),
  cacheWritePer1m: BigInt(cache.write ?? inputPer1m),
});

/**
 * Models the gateway ships beyond the dataset (whose snapshot predates them), with their
 * published prices: seeded at first start beside the dataset, then data like every other row.
 */
export const gatewayAdditions: CatalogModel[] = [
  {
    id: "gpt-4o-mini",
    ...chat(true),
    capabilities: capable(false, true),
    ownedBy: "openai",
    contextWindow: 128_000,
    maxOutputTokens: 16_384,
    aliases: ["openai/gpt-4o-mini", "gpt-4o-mini-2024-07-18"],
    prices: [
      price("openai", "gpt-4o-mini", 150_000, 600_000, { read: 75_000 }),
      price("openrouter", "openai/gpt-4o-mini", 150_000, 600_000, { read: 75_000 }),
    ],
  },
  {
    id: "gpt-4o",
    ...chat(true),
    capabilities: capable(false, true),
    ownedBy: "openai",
    contextWindow: 128_000,
    maxOutputTokens: 16_384,
    aliases: ["openai/gpt-4o", "gpt-4o-2024-11-20", "gpt-4o-2024-08-06"],
    prices: [
      price("openai", "gpt-4o", 2_500_000, 10_000_000, { read: 1_250_000 }),
      price("openrouter", "openai/gpt-4o", 2_500_000, 10_000_000, { read: 1_250_000 }),
    ],
  },
  {
    id: "gpt-4.1-mini",
    ...chat(true),
    capabilities: capable(false, true),
    ownedBy: "openai",
    contextWindow: 1_047_576,
    maxOutputTokens: 32_768,
    aliases: ["openai/gpt-4.1-mini", "gpt-4.1-mini-2025-04-14"],
    prices: [
      price("openai", "gpt-4.1-mini", 400_000, 1_600_000, { read: 100_000 }),
      price("openrouter", "openai/gpt-4.1-mini", 400_000, 1_600_000, { read: 100_000 }),
    ],
  },
  {
    id: "claude-haiku-4-5",
    ...chat(true),
    capabilities: capable(true, true),
    ownedBy: "anthropic",
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    aliases: ["anthropic/claude-haiku-4.5", "anthropic/claude-haiku-4-5", "claude-haiku-4-5-20251001"],
    prices: [
      price("anthropic", "claude-haiku-4-5", 1_000_000, 5_000_000, { read: 100_000, write: 1_250_000 }),
      price("openrouter", "anthropic/claude-haiku-4.5", 1_000_000, 5_000_000, {
        read: 100_000,
        write: 1_250_000,
      }),
    ],
  },
  {
    id: "claude-sonnet-4-5",
    ...chat(true),
    capabilities: capable(true, true),
    ownedBy: "anthropic",
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    aliases: ["anthropic/claude-sonnet-4.5", "anthropic/claude-sonnet-4-5", "claude-sonnet-4-5-20250929"],
    prices: [
      price("anthropic", "claude-sonnet-4-5", 3_000_000, 15_000_000, { read: 300_000, write: 3_750_000 }),
      price("openrouter", "anthropic/claude-sonnet-4.5", 3_000_000, 15_000_000, {
        read: 300_000,
        write: 3_750_000,
      }),
    ],
  },
  {
    id: "llama-3.3-70b-instruct",
    ...chat(false),
    capabilities: capable(false, false, false),
    ownedBy: "meta",
    contextWindow: 131_072,
    maxOutputTokens: 32_768,
    aliases: [
      "meta-llama/llama-3.3-70b-instruct",
      "llama-3.3-70b",
      "llama-3.3-70b-versatile",
      "meta-llama/Llama-3.3-70B-Instruct-Turbo",
    ],
    prices: [
      price("openrouter", "meta-llama/llama-3.3-70b-instruct", 130_000, 400_000),
      price("groq", "llama-3.3-70b-versatile", 590_000, 790_000),
      price("together", "meta-llama/Llama-3.3-70B-Instruct-Turbo", 880_000, 880_000),
      price("venice", "llama-3.3-70b", 700_000, 2_800_000),
    ],
  },
  {
    id: "deepseek-v3",
    ...chat(false),
    capabilities: capable(false, false, false),
    ownedBy: "deepseek",
    contextWindow: 128_000,
    maxOutputTokens: 8_192,
    aliases: ["deepseek/deepseek-chat", "deepseek-chat", "deepseek-ai/DeepSeek-V3"],
    prices: [
      price("openrouter", "deepseek/deepseek-chat", 270_000, 1_100_000),
      price("together", "deepseek-ai/DeepSeek-V3", 1_250_000, 1_250_000),
    ],
  },
  {
    id: "text-embedding-3-small",
    ownedBy: "openai",
    kind: "embedding",
    inputModalities: ["text"],
    outputModalities: ["embedding"],
    contextWindow: 8191,
    maxOutputTokens: 0,
    aliases: ["openai/text-embedding-3-small"],
    capabilities: { tools: false, vision: false, reasoning: false, structuredOutput: false },
    prices: [
      price("openai", "text-embedding-3-small", 20_000, 0),
      price("openrouter", "openai/text-embedding-3-small", 20_000, 0),
    ],
  },
  {
    id: "text-embedding-3-large",
    ownedBy: "openai",
    kind: "embedding",
    inputModalities: ["text"],
    outputModalities: ["embedding"],
    contextWindow: 8191,
    maxOutputTokens: 0,
    aliases: ["openai/text-embedding-3-large"],
    capabilities: { tools: false, vision: false, reasoning: false, structuredOutput: false },
    prices: [
      price("openai", "text-embedding-3-large", 130_000, 0),
      price("openrouter", "openai/text-embedding-3-large", 130_000, 0),
    ],
  },
];
