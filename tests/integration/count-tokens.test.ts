import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promptTokensOf } from "../helpers/fake-upstream";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway.close();
});

const client = (token: string) =>
  new Anthropic({ baseURL: `${gateway.baseUrl}/proxy/${token}`, apiKey: "pod", maxRetries: 0 });

describe("POST /proxy/<token>/v1/messages/count_tokens (Claude Code's token counter)", () => {
  it("asks the Anthropic upstream for Claude models, free of charge", async () => {
    const token = await gateway.createFundedToken(1_000n);
    const messages = [{ role: "user" as const, content: "count these words for me please" }];
    const counted = await client(token).messages.countTokens({ model: "claude-haiku-4-5", messages });
    expect(counted.input_tokens).toBe(promptTokensOf({ messages }));
    expect(gateway.anthropic.requests.at(-1)?.path).toBe("/v1/messages/count_tokens");
    expect(gateway.anthropic.requests.at(-1)?.body.model).toBe("claude-haiku-4-5");
    expect(await gateway.balanceOf(token)).toEqual({ balance: 1_000n, held: 0n, available: 1_000n });
  });

  it("estimates for models no Anthropic upstream serves, and says so", async () => {
    const token = await gateway.createFundedToken(1_000n);
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/messages/count_tokens`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x".repeat(400) }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-pod-estimated")).toBe("true");
    expect(((await response.json()) as { input_tokens: number }).input_tokens).toBeGreaterThanOrEqual(100);
  });

  it("keeps the token and input rules of the proxy", async () => {
    const request = { model: "claude-haiku-4-5", messages: [{ role: "user" as const, content: "x" }] };
    await expect(client("nope").messages.countTokens(request)).rejects.toBeInstanceOf(
      Anthropic.AuthenticationError,
    );
    const token = await gateway.createFundedToken(1n);
    await expect(
      client(token).messages.countTokens({ ...request, model: "no-such-model" }),
    ).rejects.toBeInstanceOf(Anthropic.NotFoundError);
  });
});
