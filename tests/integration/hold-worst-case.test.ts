import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usageRecords } from "../../lib/db/schema";
import { estimateFactor } from "../../lib/usage/meter-usage";
import { countTokens } from "../../lib/usage/tokenizer";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

/**
 * Issue 9: every way a request could be served for less than the upstream charges. Each
 * case compares what was charged with the upstream's own usage at the route's price.
 */
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway.close();
});

// gpt-4o-mini on OpenAI: 150_000 in, 600_000 out per 1M tokens.
const miniCost = (usage: { prompt_tokens: number; completion_tokens: number }) =>
  BigInt(Math.ceil((usage.prompt_tokens * 150_000 + usage.completion_tokens * 600_000) / 1_000_000));

async function chat(token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

async function messages(token: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return fetch(`${gateway.baseUrl}/proxy/${token}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers },
    body: JSON.stringify(body),
  });
}

async function usageRow(requestId: string) {
  const rows = await gateway.app.database.db
    .select()
    .from(usageRecords)
    .where(eq(usageRecords.requestId, requestId));
  return rows[0];
}

describe("the hold covers every choice and one output limit", () => {
  it("n > 1: the hold covers n choices and the whole upstream cost is charged", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const response = await chat(token, {
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "many [fake:tokens=100]" }],
      n: 64,
      max_tokens: 100,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      choices: unknown[];
      usage: { prompt_tokens: number; completion_tokens: number };
    };
    expect(body.choices).toHaveLength(64);
    expect(body.usage.completion_tokens).toBe(6_400);
    expect(BigInt(response.headers.get("x-pod-cost-microunits") ?? "0")).toBe(miniCost(body.usage));
  });

  it("n above OpenAI's ceiling is a 400 before any upstream call", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const before = gateway.openai.requests.length;
    const response = await chat(token, {
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "x" }],
      n: 500,
    });
    expect(response.status).toBe(400);
    expect(gateway.openai.requests.length).toBe(before);
  });

  it("max_completion_tokens and max_tokens together: the smaller one is the only limit forwarded", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const response = await chat(token, {
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "both [fake:tokens=4000]" }],
      max_completion_tokens: 1,
      max_tokens: 4000,
    });
    expect(response.status).toBe(200);
    const forwarded = gateway.openai.requests.at(-1)?.body ?? {};
    expect(forwarded.max_completion_tokens).toBe(1);
    expect(forwarded.max_tokens).toBeUndefined();
    const body = (await response.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
    expect(body.usage.completion_tokens).toBe(1);
    expect(BigInt(response.headers.get("x-pod-cost-microunits") ?? "0")).toBe(miniCost(body.usage));
  });

  it("without a caller limit, the limit the hold covers is still forwarded", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const response = await chat(token, { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] });
    expect(response.status).toBe(200);
    const forwarded = gateway.openai.requests.at(-1)?.body ?? {};
    expect(forwarded.max_completion_tokens).toBeGreaterThan(0);
    expect(forwarded.max_tokens).toBeUndefined();
  });
});

describe("input the byte estimate cannot see", () => {
  const imageByUrl = {
    role: "user",
    content: [
      { type: "text", text: "what is this" },
      { type: "image_url", image_url: { url: "https://example.com/huge.png" } },
    ],
  };

  it("an image by URL is priced at the whole context window: a small balance is refused 402", async () => {
    // 128k context x 150_000 per 1M = 19_200 microunits of worst-case input.
    const token = await gateway.createFundedToken(10_000n);
    const before = gateway.openai.requests.length;
    const response = await chat(token, { model: "gpt-4o-mini", messages: [imageByUrl], max_tokens: 10 });
    expect(response.status).toBe(402);
    expect(gateway.openai.requests.length).toBe(before);
    expect(await gateway.balanceOf(token)).toEqual({ balance: 10_000n, held: 0n, available: 10_000n });
  });

  it("an image inline (data: URL) is in the bytes and served at a small balance", async () => {
    const token = await gateway.createFundedToken(10_000n);
    const inline = {
      role: "user",
      content: [{ type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }],
    };
    const response = await chat(token, { model: "gpt-4o-mini", messages: [inline], max_tokens: 10 });
    expect(response.status).toBe(200);
  });

  it("an Anthropic document by URL is priced at the context window too", async () => {
    const token = await gateway.createFundedToken(10_000n);
    const response = await messages(token, {
      model: "claude-haiku-4-5",
      max_tokens: 10,
      messages: [
        {
          role: "user",
          content: [{ type: "document", source: { type: "url", url: "https://example.com/big.pdf" } }],
        },
      ],
    });
    expect(response.status).toBe(402);
  });

  it.each([
    ["anthropic web search", "anthropic", { tools: [{ type: "web_search_20250305", name: "web_search" }] }],
    ["anthropic code execution", "anthropic", { tools: [{ type: "code_execution_20250825", name: "x" }] }],
    ["MCP servers", "anthropic", { mcp_servers: [{ type: "url", url: "https://mcp.example", name: "m" }] }],
    ["openai web search", "openai", { web_search_options: {} }],
  ])("server-side tools (%s) are a 400 before any upstream call", async (_name, dialect, extra) => {
    const token = await gateway.createFundedToken(1_000_000n);
    const before = gateway.openai.requests.length + gateway.anthropic.requests.length;
    const body = {
      model: dialect === "openai" ? "gpt-4o-mini" : "claude-haiku-4-5",
      max_tokens: 10,
      messages: [{ role: "user", content: "search" }],
      ...extra,
    };
    const response = dialect === "openai" ? await chat(token, body) : await messages(token, body);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
      /not supported/,
    );
    expect(gateway.openai.requests.length + gateway.anthropic.requests.length).toBe(before);
  });

  it("an anthropic-beta that switches on long-context pricing is not forwarded; other betas are", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const response = await messages(
      token,
      { model: "claude-haiku-4-5", max_tokens: 10, messages: [{ role: "user", content: "hi" }] },
      { "anthropic-beta": "context-1m-2025-08-07, fine-grained-tool-streaming-2025-05-14" },
    );
    expect(response.status).toBe(200);
    expect(gateway.anthropic.requests.at(-1)?.headers["anthropic-beta"]).toBe(
      "fine-grained-tool-streaming-2025-05-14",
    );
  });
});

describe("an Anthropic stream that ends early", () => {
  it("is billed the content it streamed, counted by the gateway, not message_start's placeholder of 1", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const response = await messages(token, {
      model: "claude-haiku-4-5",
      max_tokens: 100,
      stream: true,
      messages: [{ role: "user", content: "cut [fake:tokens=20] [fake:cut=6]" }],
    });
    expect(response.status).toBe(200);
    await response.text();
    const requestId = response.headers.get("request-id") ?? "";
    // Claude's tokenizer ships nowhere: the o200k count of the six words relayed, scaled up.
    const streamed = Math.ceil((await countTokens("Hello w1 w2 w3 w4 w5")) * estimateFactor);
    expect(streamed).toBeGreaterThan(6);
    await expect
      .poll(async () => (await usageRow(requestId))?.outputTokens, { timeout: 5_000 })
      .toBe(streamed);
  });
});

describe("concurrency fairness", () => {
  it("100 concurrent small requests without max_tokens on 0.2 USDC are all served", async () => {
    const token = await gateway.createFundedToken(200_000n);
    const responses = await Promise.all(
      Array.from({ length: 100 }, () =>
        chat(token, { model: "gpt-4o", messages: [{ role: "user", content: "hi [fake:tokens=5]" }] }).then(
          async (response) => ({ status: response.status, body: await response.text() }),
        ),
      ),
    );
    expect(responses.filter((response) => response.status !== 200)).toEqual([]);
    const balance = await gateway.balanceOf(token);
    expect(balance.held).toBe(0n);
    expect(balance.balance).toBeGreaterThan(0n);
  });
});
