import { ChatAnthropic } from "@langchain/anthropic";
import type { AIMessageChunk } from "@langchain/core/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countPromptTokens } from "../../lib/usage/count-prompt";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

/**
 * An Anthropic-format stream served by an OpenAI-format upstream: OpenAI reports usage only in
 * its last chunk, but Anthropic clients read the input count from message_start. The gateway
 * opens the stream with its own o200k count of the prompt it forwarded, so LangChain's
 * ChatAnthropic reports the input tokens instead of 0.
 */
let gateway: TestGateway;
let token: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  token = await gateway.createFundedToken(50_000_000n);
});
afterAll(async () => {
  await gateway.close();
});

/** The gateway's count of what the fake OpenAI upstream last received. */
async function forwardedPromptCount(): Promise<number> {
  const forwarded = gateway.openai.requests.at(-1)?.body;
  if (!forwarded) throw new Error("nothing reached the OpenAI upstream");
  return countPromptTokens(JSON.stringify(forwarded));
}

describe("translated Anthropic streams carry the input count in message_start", () => {
  it("LangChain's ChatAnthropic reports the prompt's input tokens on a GPT model", async () => {
    const model = new ChatAnthropic({
      model: "gpt-4o-mini",
      apiKey: "pod",
      anthropicApiUrl: `${gateway.baseUrl}/proxy/${token}`,
      // Pinned to the OpenAI-format source, so the stream is translated.
      clientOptions: { defaultHeaders: { "x-pod-providers": "openai" } },
      maxRetries: 0,
      streaming: true,
    });
    const prompt = [
      { role: "system" as const, content: "You are a weather assistant. Answer in one sentence." },
      {
        role: "user" as const,
        content: "What is the weather like in Paris in late November? [fake:tokens=12]",
      },
    ];
    let message: AIMessageChunk | undefined;
    for await (const chunk of await model.stream(prompt)) message = message ? message.concat(chunk) : chunk;
    const expected = await forwardedPromptCount();
    expect(expected).toBeGreaterThan(20);
    expect(message?.usage_metadata).toMatchObject({
      input_tokens: expected,
      output_tokens: 12,
      total_tokens: expected + 12,
    });
  });

  it("the raw stream's message_start has the count; message_delta keeps the upstream's totals", async () => {
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-pod-providers": "openai" },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        max_tokens: 64,
        stream: true,
        messages: [{ role: "user", content: "Count to three. [fake:tokens=3]" }],
      }),
    });
    expect(response.status).toBe(200);
    const events = (await response.text())
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map(
        (line) => JSON.parse(line.slice(6)) as { type: string; message?: { usage: Record<string, number> } },
      );
    const expected = await forwardedPromptCount();
    expect(events[0]?.type).toBe("message_start");
    expect(events[0]?.message?.usage).toMatchObject({ input_tokens: expected, output_tokens: 0 });
    // The upstream's own figure (what billing reads) still arrives at the end.
    expect(events.find((event) => event.type === "message_delta")).toMatchObject({
      usage: { input_tokens: expect.any(Number), output_tokens: 3 },
    });
  });
});
