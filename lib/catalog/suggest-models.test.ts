import { describe, expect, it } from "vitest";
import { buildCatalogIndex } from "./catalog-index";
import { gatewayAdditions } from "./gateway-additions";
import type { CatalogModel } from "./models";
import { suggestModels } from "./suggest-models";

const named = (id: string, aliases: string[] = []): CatalogModel => ({
  ...(gatewayAdditions[0] as CatalogModel),
  id,
  aliases,
});
/** The gateway's additions and ids of the shipped dataset that sit near the typed ones. */
const models = buildCatalogIndex([
  ...gatewayAdditions,
  ...["claude-sonnet-4-5", "claude-opus-4-5", "claude-3-haiku", "gpt-4o", "gpt-5-mini", "gpt-5-nano"]
    .filter((id) => !gatewayAdditions.some((model) => model.id === id))
    .map((id) => named(id)),
]).models;

describe("close model ids for an unknown one", () => {
  it("claude-3-5-haiku-latest, a retired model, suggests the current Haiku among the older one", () => {
    const suggestions = suggestModels(models, "claude-3-5-haiku-latest");
    expect(suggestions).toContain("claude-haiku-4-5");
    expect(suggestions).toContain("claude-3-haiku");
    expect(suggestions).not.toContain("gpt-4o-mini");
  });

  it.each([
    ["gpt-4o-mnii", "gpt-4o-mini"],
    ["gpt4o-mini", "gpt-4o-mini"],
    ["anthropic/claude-sonet-4-5", "claude-sonnet-4-5"],
  ])("%s suggests %s first", (typed, expected) => {
    const suggestions = suggestModels(models, typed);
    expect(suggestions[0]).toBe(expected);
    expect(suggestions.length).toBeLessThanOrEqual(3);
    expect(new Set(suggestions).size).toBe(suggestions.length);
  });

  it("names a model once, by its canonical id, when the typo is nearer an alias", () => {
    const suggestions = suggestModels(
      [named("house-model", ["vendor/exact-alias-name"])],
      "exact-alias-nmae",
    );
    expect(suggestions).toEqual(["house-model"]);
  });

  it.each(["xyz", "claude", "", "a".repeat(5000)])("suggests nothing for %j, nothing close", (typed) => {
    expect(suggestModels(models, typed)).toEqual([]);
  });
});
