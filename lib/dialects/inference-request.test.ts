import { describe, expect, it } from "vitest";
import { GatewayError } from "../errors/gateway-error";
import { estimateInputTokens, parseInferenceRequest } from "./inference-request";

const parse = (dialect: "openai" | "anthropic", body: unknown) =>
  parseInferenceRequest(dialect, body, JSON.stringify(body));

describe("parseInferenceRequest", () => {
  it("reads model, stream, limits and include_usage", () => {
    const request = parse("openai", {
      model: "m",
      messages: [],
      stream: true,
      max_completion_tokens: 9,
      stream_options: { include_usage: true },
    });
    expect(request).toMatchObject({
      model: "m",
      stream: true,
      maxTokens: 9,
      maxTokensField: "max_completion_tokens",
      includeUsage: true,
    });
    expect(parse("anthropic", { model: "m", messages: [], max_tokens: 5 })).toMatchObject({
      maxTokens: 5,
      maxTokensField: "max_tokens",
      includeUsage: false,
    });
  });

  it.each([
    [[], /JSON object/],
    [{ messages: [] }, /model is required/],
    [{ model: "", messages: [] }, /model is required/],
    [{ model: "m" }, /messages must be an array/],
    [{ model: "m", messages: [], stream: "yes" }, /stream must be a boolean/],
    [{ model: "m", messages: [], max_tokens: 1.5 }, /max_tokens must be a positive integer/],
  ])("rejects %o", (body, message) => {
    expect(() => parse("openai", body)).toThrowError(message);
    try {
      parse("openai", body);
    } catch (error) {
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).status).toBe(400);
    }
  });

  it("keeps the smaller of two limits, reads n, and flags input fetched by URL", () => {
    const request = parse("openai", {
      model: "m",
      messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://x/y.png" } }] }],
      max_completion_tokens: 1,
      max_tokens: 4000,
      n: 3,
    });
    expect(request).toMatchObject({ maxTokens: 1, maxTokensField: "max_completion_tokens", choices: 3 });
    expect(request.unsizedInput).toBe(true);
    expect(estimateInputTokens(request, 128_000)).toBe(128_000);
    expect(parse("anthropic", { model: "m", messages: [], max_tokens: 5, n: 4 }).choices).toBe(1);
  });

  it("estimates generously but never past the context window", () => {
    const request = parse("openai", { model: "m", messages: [{ role: "user", content: "x".repeat(400) }] });
    expect(estimateInputTokens(request, 1_000_000)).toBeGreaterThanOrEqual(100);
    expect(estimateInputTokens(request, 50)).toBe(50);
  });
});
