import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { ChatAnthropic } from "@langchain/anthropic";
import { ChatOpenAI } from "@langchain/openai";
import { generateObject, streamObject } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

/**
 * Structured output across dialects with the client libraries people use, unchanged: the
 * Vercel AI SDK's generateObject/streamObject and LangChain's withStructuredOutput, each
 * speaking one format to a model served in the other. The fake upstreams answer structured
 * requests as the real APIs do, so a valid object proves the request was translated (not
 * dropped) and the answer came back in the caller's shape.
 */
let gateway: TestGateway;
let token: string;

const weather = z.object({
  city: z.string(),
  degrees: z.number(),
  conditions: z.enum(["sunny", "rainy"]),
  hourly: z.array(z.object({ hour: z.number().int(), degrees: z.number() })),
});
const expected = { city: "Paris", degrees: 7.5, conditions: "sunny", hourly: [{ hour: 7, degrees: 7.5 }] };

// Each model has two sources of different formats; the pin makes the cross-format one serve.
const toAnthropic = { "x-pod-providers": "anthropic" };
const toOpenai = { "x-pod-providers": "openai" };

beforeAll(async () => {
  gateway = await startTestGateway();
  token = await gateway.createFundedToken(50_000_000n);
});
afterAll(async () => {
  await gateway.close();
});

const base = () => `${gateway.baseUrl}/proxy/${token}/v1`;
const lastBody = (fake: "anthropic" | "openai") => gateway[fake].requests.at(-1)?.body ?? {};

describe("Vercel AI SDK", () => {
  it("generateObject over OpenAI chat completions gets an object from a Claude model", async () => {
    const provider = createOpenAI({ baseURL: base(), apiKey: "pod", headers: toAnthropic });
    const { object } = await generateObject({
      model: provider.chat("claude-haiku-4-5"),
      schema: weather,
      prompt: "Weather in Paris?",
    });
    expect(object).toEqual(expected);
    // Sent to Anthropic as a forced tool carrying the schema, not dropped.
    expect(lastBody("anthropic").tool_choice).toMatchObject({ type: "tool" });
  });

  it("generateObject over the Responses API gets an object from a Claude model", async () => {
    const provider = createOpenAI({ baseURL: base(), apiKey: "pod", headers: toAnthropic });
    const { object } = await generateObject({
      model: provider.responses("claude-haiku-4-5"),
      schema: weather,
      prompt: "Weather in Paris?",
      providerOptions: { openai: { store: false } },
    });
    expect(object).toEqual(expected);
  });

  it("streamObject over OpenAI chat completions streams the object from a Claude model", async () => {
    const provider = createOpenAI({ baseURL: base(), apiKey: "pod", headers: toAnthropic });
    const result = streamObject({
      model: provider.chat("claude-haiku-4-5"),
      schema: weather,
      prompt: "Weather in Paris?",
    });
    const partials = [];
    for await (const partial of result.partialObjectStream) partials.push(partial);
    expect(partials.length).toBeGreaterThan(1);
    expect(await result.object).toEqual(expected);
  });

  it("@ai-sdk/anthropic generateObject gets an object from a GPT model", async () => {
    const provider = createAnthropic({ baseURL: base(), apiKey: "pod", headers: toOpenai });
    const { object, usage } = await generateObject({
      model: provider("gpt-4o-mini"),
      schema: weather,
      prompt: "Weather in Paris?",
    });
    expect(object).toEqual(expected);
    expect(usage.inputTokens).toBeGreaterThan(0);
    const body = lastBody("openai");
    expect(body.tool_choice ?? body.response_format).toBeDefined();
  });

  it("@ai-sdk/anthropic streamObject streams an object from a GPT model", async () => {
    const provider = createAnthropic({ baseURL: base(), apiKey: "pod", headers: toOpenai });
    const result = streamObject({ model: provider("gpt-4o-mini"), schema: weather, prompt: "Weather?" });
    const partials = [];
    for await (const partial of result.partialObjectStream) partials.push(partial);
    expect(partials.length).toBeGreaterThan(1);
    expect(await result.object).toEqual(expected);
  });
});

describe("LangChain withStructuredOutput", () => {
  it("ChatOpenAI on a Claude model (response_format json_schema)", async () => {
    const model = new ChatOpenAI({
      model: "claude-haiku-4-5",
      apiKey: "pod",
      configuration: { baseURL: base(), defaultHeaders: toAnthropic },
      maxRetries: 0,
    });
    const object = await model.withStructuredOutput(weather, { name: "weather" }).invoke("Weather in Paris?");
    expect(object).toEqual(expected);
    expect(lastBody("anthropic").tool_choice).toEqual({ type: "tool", name: "weather" });
  });

  it("ChatOpenAI json mode on a Claude model gets a JSON object", async () => {
    const model = new ChatOpenAI({
      model: "claude-haiku-4-5",
      apiKey: "pod",
      configuration: { baseURL: base(), defaultHeaders: toAnthropic },
      maxRetries: 0,
    });
    const object = await model
      .withStructuredOutput(z.object({ answer: z.string() }), { method: "jsonMode" })
      .invoke("Answer in JSON");
    expect(object).toEqual({ answer: "Hello" });
  });

  it("ChatAnthropic on a GPT model (a forced tool)", async () => {
    const model = new ChatAnthropic({
      model: "gpt-4o-mini",
      apiKey: "pod",
      anthropicApiUrl: `${gateway.baseUrl}/proxy/${token}`,
      clientOptions: { defaultHeaders: toOpenai },
      maxRetries: 0,
    });
    const object = await model.withStructuredOutput(weather, { name: "weather" }).invoke("Weather in Paris?");
    expect(object).toEqual(expected);
    expect(lastBody("openai").tool_choice).toEqual({ type: "function", function: { name: "weather" } });
  });
});
