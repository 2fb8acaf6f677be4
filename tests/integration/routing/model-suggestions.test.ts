import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../../helpers/gateway";

/**
 * A model id people type that the catalog does not know is a 404 in the caller's dialect that
 * names close ids; a model that exists but that no configured provider sells says so and names
 * the provider (this gateway has keys for OpenAI, OpenRouter and Anthropic only).
 */
let gateway: TestGateway;
let token: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  token = await gateway.createFundedToken(1_000_000n);
});
afterAll(async () => {
  await gateway.close();
});

const openai = () =>
  new OpenAI({ baseURL: `${gateway.baseUrl}/proxy/${token}/v1`, apiKey: "pod", maxRetries: 0 });
const anthropic = () =>
  new Anthropic({ baseURL: `${gateway.baseUrl}/proxy/${token}`, apiKey: "pod", maxRetries: 0 });

async function openaiError(model: string): Promise<InstanceType<typeof OpenAI.APIError>> {
  const error = await openai()
    .chat.completions.create({ model, messages: [{ role: "user", content: "hi" }], max_tokens: 5 })
    .catch((caught: unknown) => caught);
  if (!(error instanceof OpenAI.APIError)) throw new Error(`expected an API error, got ${String(error)}`);
  return error;
}

describe("model ids people type", () => {
  it("claude-3-5-haiku-latest is an Anthropic 404 that names claude-haiku-4-5", async () => {
    const error = await anthropic()
      .messages.create({
        model: "claude-3-5-haiku-latest",
        max_tokens: 5,
        messages: [{ role: "user", content: "hi" }],
      })
      .catch((caught: unknown) => caught);
    if (!(error instanceof Anthropic.NotFoundError)) throw new Error(`expected a 404, got ${String(error)}`);
    const body = error.error as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe("error");
    expect(body.error.type).toBe("not_found_error");
    expect(body.error.message).toContain("claude-haiku-4-5");
  });

  it("gpt-4o-mnii is an OpenAI 404 whose first suggestion is gpt-4o-mini, and no upstream is asked", async () => {
    const before = gateway.openai.requests.length + gateway.openrouter.requests.length;
    const error = await openaiError("gpt-4o-mnii");
    expect(error.status).toBe(404);
    expect(error.code).toBe("model_not_found");
    expect(error.message).toContain("did you mean gpt-4o-mini");
    const details = (error.error as { details?: { suggestions?: string[] } }).details;
    expect(details?.suggestions?.[0]).toBe("gpt-4o-mini");
    expect(details?.suggestions?.length).toBeLessThanOrEqual(3);
    expect(gateway.openai.requests.length + gateway.openrouter.requests.length).toBe(before);
  });

  it("a model only Groq sells, on a gateway without a Groq key, names Groq instead of a bare not-found", async () => {
    const error = await openaiError("llama-3.1-8b-instant");
    expect(error.status).toBe(404);
    expect(error.message).toContain("sold by groq");
    expect((error.error as { details?: { unconfigured_providers?: string[] } }).details).toMatchObject({
      unconfigured_providers: ["groq"],
    });
  });

  it("a catalog model whose providers lost their keys is a 503 that names them", async () => {
    const upstreams = gateway.app.upstreams;
    gateway.app.upstreams = new Map([...upstreams].filter(([name]) => name === "openai"));
    try {
      const error = await openaiError("claude-haiku-4-5");
      expect(error.status).toBe(503);
      expect(error.message).toContain("sold by anthropic, openrouter");
    } finally {
      gateway.app.upstreams = upstreams;
    }
  });

  it("an id close to nothing is a plain 404", async () => {
    const error = await openaiError("zzqx-unrelated");
    expect(error.status).toBe(404);
    expect(error.message).toBe("404 model not found: zzqx-unrelated");
  });
});
