import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

/** A request for something the model cannot do is a 400 before any hold or upstream call. */
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway.close();
});

const upstreamCalls = () =>
  gateway.openai.requests.length + gateway.openrouter.requests.length + gateway.anthropic.requests.length;

describe("capabilities a model lacks", () => {
  it.each([
    ["chat/completions", { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }],
    [
      "messages",
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
    ],
  ])(
    "an image to a text-only model over %s is a 400 naming the model; nothing moves",
    async (path, image) => {
      const token = await gateway.createFundedToken(1_000_000n);
      const before = upstreamCalls();
      const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "deepseek-v3",
          max_tokens: 20,
          messages: [{ role: "user", content: [{ type: "text", text: "What is this?" }, image] }],
        }),
      });
      expect(response.status).toBe(400);
      expect(await response.text()).toContain("deepseek-v3 does not take image input");
      expect(upstreamCalls()).toBe(before);
      expect(await gateway.balanceOf(token)).toEqual({
        balance: 1_000_000n,
        held: 0n,
        available: 1_000_000n,
      });
    },
  );
});
