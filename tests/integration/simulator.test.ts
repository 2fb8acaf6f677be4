import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ env: { POD_SIMULATOR: "true" } });
});
afterAll(async () => {
  await gateway.close();
});

const pin = { "X-Pod-Providers": "simulator" };

describe("the dev simulator (POD_SIMULATOR=true)", () => {
  it("serves a labelled, billed OpenAI stream when pinned", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const openai = new OpenAI({
      baseURL: `${gateway.baseUrl}/proxy/${token}/v1`,
      apiKey: "pod",
      defaultHeaders: pin,
    });
    const { data: stream, response } = await openai.chat.completions
      .create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], stream: true })
      .withResponse();
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toMatch(/^\[simulated\]/);
    expect(response.headers.get("x-pod-provider-id")).toBe("simulator");
    const balance = await gateway.balanceOf(token);
    expect(balance.balance).toBeLessThan(1_000_000n);
    expect(balance.held).toBe(0n);
  });

  it("answers the Anthropic SDK through translation", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const anthropic = new Anthropic({
      baseURL: `${gateway.baseUrl}/proxy/${token}`,
      apiKey: "pod",
      defaultHeaders: pin,
    });
    const message = await anthropic.messages.create({
      model: "claude-haiku-4-5",
      max_tokens: 5,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(message.content[0]).toMatchObject({ type: "text", text: expect.stringMatching(/^\[simulated\]/) });
    expect(message.stop_reason).toBe("max_tokens");
    expect(message.usage.output_tokens).toBe(5);
  });

  it("is listed in /health as simulated", async () => {
    const body = (await (await fetch(`${gateway.baseUrl}/health`)).json()) as {
      components: { upstreams: Record<string, unknown> };
    };
    expect(body.components.upstreams.simulator).toEqual({
      configured: true,
      dialect: "openai",
      simulated: true,
    });
  });
});

describe("without POD_SIMULATOR", () => {
  it("a pin on the simulator is a 503 naming it, never a silent fallback", async () => {
    const plain = await startTestGateway();
    try {
      const token = await plain.createFundedToken(1_000_000n);
      const response = await fetch(`${plain.baseUrl}/proxy/${token}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...pin },
        body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
        "simulator",
      );
      expect((await plain.balanceOf(token)).balance).toBe(1_000_000n);
    } finally {
      await plain.close();
    }
  });
});
