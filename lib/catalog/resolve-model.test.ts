import { describe, expect, it } from "vitest";
import { buildCatalogIndex } from "./catalog-index";
import { gatewayAdditions } from "./gateway-additions";
import { resolveModel } from "./resolve-model";

const catalog = buildCatalogIndex(gatewayAdditions);

describe("canonical model ids", () => {
  it.each([
    ["gpt-4o-mini", "gpt-4o-mini"],
    ["GPT-4o-mini", "gpt-4o-mini"],
    ["openai/gpt-4o-mini", "gpt-4o-mini"],
    ["gpt-4o-mini-2024-07-18", "gpt-4o-mini"],
    ["openai/gpt-4o-mini-2024-07-18", "gpt-4o-mini"],
    ["gpt-4.1-mini", "gpt-4.1-mini"],
    ["gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"],
    ["claude-haiku-4.5", "claude-haiku-4-5"],
    ["anthropic/claude-sonnet-4-5-20250929", "claude-sonnet-4-5"],
    ["claude-sonnet-4-5-latest", "claude-sonnet-4-5"],
    ["deepseek/deepseek-v3", "deepseek-v3"],
    ["meta-llama/Llama-3.3-70B-Instruct-Turbo", "llama-3.3-70b-instruct"],
  ])("%s → %s", (input, expected) => {
    expect(resolveModel(catalog, input)?.id).toBe(expected);
  });

  it.each(["gpt-5-unknown", "", "openai/", "claude"])("%j is unknown", (input) => {
    expect(resolveModel(catalog, input)).toBeUndefined();
  });
});
