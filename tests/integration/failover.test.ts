import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway.close();
});

const chat = (token: string, content: string, stream = false) =>
  fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "gpt-4o-mini",
      max_tokens: 20,
      stream,
      messages: [{ role: "user", content }],
    }),
  });

describe("failover between centralized providers before the first byte", () => {
  for (const status of [401, 429, 500, 503]) {
    it(`an upstream ${status} moves on to the next provider and bills only the one that served`, async () => {
      const token = await gateway.createFundedToken(100_000n);
      const response = await chat(token, `[fake:fail=fake-openai:${status}] hi`);
      expect(response.status).toBe(200);
      expect(response.headers.get("x-pod-provider-id")).toBe("openrouter");
      const body = (await response.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
      const expected = BigInt(
        Math.ceil((body.usage.prompt_tokens * 150_000 + body.usage.completion_tokens * 600_000) / 1_000_000),
      );
      expect((await gateway.balanceOf(token)).balance).toBe(100_000n - expected);
    });
  }

  it("streams fail over too", async () => {
    const token = await gateway.createFundedToken(100_000n);
    const response = await chat(token, "[fake:fail=fake-openai] hi", true);
    expect(response.headers.get("x-pod-provider-id")).toBe("openrouter");
    expect(await response.text()).toContain("[DONE]");
  });

  it("when every provider fails the caller gets a 502 in its dialect and nothing is billed", async () => {
    const token = await gateway.createFundedToken(100_000n);
    const response = await chat(token, "[fake:error=500] hi");
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: { type: string } };
    expect(body.error.type).toBe("upstream_error");
    expect(await gateway.balanceOf(token)).toEqual({ balance: 100_000n, held: 0n, available: 100_000n });

    const anthropic = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "claude-haiku-4-5",
        max_tokens: 20,
        messages: [{ role: "user", content: "[fake:error=529] hi" }],
      }),
    });
    expect(anthropic.status).toBe(502);
    expect(((await anthropic.json()) as { type: string }).type).toBe("error");
    expect(await verifyLedger(gateway.app.database.db)).toEqual([]);
  });
});
