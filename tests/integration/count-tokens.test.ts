import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promptTokensOf } from "../helpers/fake-upstream";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

let gateway: TestGateway;

const perMinute = 5;

beforeAll(async () => {
  gateway = await startTestGateway({ env: { COUNT_TOKENS_RATE_LIMIT_PER_MINUTE: String(perMinute) } });
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

  it("refuses a token that was never funded (402) without asking the upstream", async () => {
    const { token } = await gateway.register();
    const calls = gateway.anthropic.requests.length;
    const request = { model: "claude-haiku-4-5", messages: [{ role: "user" as const, content: "x" }] };
    const error = await client(token)
      .messages.countTokens(request)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(402);
    expect(gateway.anthropic.requests.length).toBe(calls);
  });

  it("limits each token to COUNT_TOKENS_RATE_LIMIT_PER_MINUTE calls, refused before the upstream", async () => {
    const token = await gateway.createFundedToken(1_000n);
    const calls = gateway.anthropic.requests.length;
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let index = 0; index < perMinute + 3; index += 1) {
      const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/messages/count_tokens`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "claude-haiku-4-5", messages: [{ role: "user", content: "x" }] }),
      });
      statuses.push(response.status);
      if (response.status === 429) {
        retryAfter = response.headers.get("retry-after");
        const body = (await response.json()) as { type: string; error: { type: string } };
        expect(body.type).toBe("error");
      } else await response.arrayBuffer();
    }
    expect(statuses).toEqual([...Array(perMinute).fill(200), 429, 429, 429]);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(gateway.anthropic.requests.length - calls).toBe(perMinute);
    // Another token has its own window.
    const other = await gateway.createFundedToken(1_000n);
    await expect(
      client(other).messages.countTokens({
        model: "claude-haiku-4-5",
        messages: [{ role: "user", content: "x" }],
      }),
    ).resolves.toMatchObject({ input_tokens: expect.any(Number) });
  });

  it("estimates when the Anthropic upstream fails, without echoing its error", async () => {
    const token = await gateway.createFundedToken(1_000n);
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/messages/count_tokens`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "claude-haiku-4-5",
        messages: [{ role: "user", content: "count [fake:fail=fake-anthropic:503]" }],
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-pod-estimated")).toBe("true");
    expect(gateway.anthropic.requests.at(-1)?.path).toBe("/v1/messages/count_tokens");
    expect(await gateway.balanceOf(token)).toEqual({ balance: 1_000n, held: 0n, available: 1_000n });
  });

  it("answers a request the upstream calls malformed with a 400 in the Anthropic dialect", async () => {
    const token = await gateway.createFundedToken(1_000n);
    const error = await client(token)
      .messages.countTokens({
        model: "claude-haiku-4-5",
        messages: [{ role: "user", content: "count [fake:fail=fake-anthropic:400]" }],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
  });
});
