import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

/**
 * POST /proxy/<token>/v1/embeddings with the official openai SDK: every input shape, the
 * options passed on, billed per input token at the catalog price, and nothing moved when the
 * request is refused or every source fails.
 */
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway.close();
});

const client = (token: string) =>
  new OpenAI({ baseURL: `${gateway.baseUrl}/proxy/${token}/v1`, apiKey: "pod", maxRetries: 0 });
// text-embedding-3-small: 20,000 microunits per 1M input tokens on every source.
const cost = (tokens: number) => BigInt(Math.ceil((tokens * 20_000) / 1_000_000));

describe("embeddings through the openai SDK", () => {
  it("embeds a string, billed per input token", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const result = await client(token).embeddings.create({
      model: "text-embedding-3-small",
      input: "The food was delicious and the waiter was friendly.",
    });
    expect(result.data).toHaveLength(1);
    expect(result.data[0]?.embedding).toHaveLength(8);
    expect(result.model).toBe("text-embedding-3-small");
    expect(result.usage.prompt_tokens).toBe(13);
    expect(await gateway.balanceOf(token)).toEqual({
      balance: 1_000_000n - cost(13),
      held: 0n,
      available: 1_000_000n - cost(13),
    });
    expect(gateway.openai.requests.at(-1)?.path).toBe("/v1/embeddings");
  });

  it("embeds many strings and token arrays, with dimensions and base64 passed on", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const many = await client(token).embeddings.create({
      model: "openai/text-embedding-3-small",
      input: ["first text", "second text", "third"],
      dimensions: 4,
    });
    expect(many.data.map((item) => item.index)).toEqual([0, 1, 2]);
    expect(many.data.every((item) => item.embedding.length === 4)).toBe(true);
    const tokens = await client(token).embeddings.create({
      model: "text-embedding-3-small",
      input: [
        [1, 2, 3],
        [4, 5],
      ],
      encoding_format: "float",
    });
    expect(tokens.usage.prompt_tokens).toBe(5);
    // The SDK asks for base64 by default and decodes it: the vector arrives intact.
    expect(tokens.data[1]?.embedding[0]).toBeCloseTo(2 / 2);
    const sent = gateway.openai.requests.filter((request) => request.path === "/v1/embeddings").at(-2)?.body;
    expect(sent).toMatchObject({ model: "text-embedding-3-small", dimensions: 4 });
    const { balance } = await gateway.balanceOf(token);
    expect(balance).toBe(1_000_000n - cost(many.usage.prompt_tokens) - cost(5));
  });

  it.each([
    ["a chat model", { model: "gpt-4o-mini", input: "hi" }, 400],
    ["an unknown model", { model: "no-such-embedder", input: "hi" }, 404],
    ["an empty input", { model: "text-embedding-3-small", input: [] }, 400],
    ["a negative token id", { model: "text-embedding-3-small", input: [1, -2] }, 400],
    ["a fractional token id", { model: "text-embedding-3-small", input: [1.5] }, 400],
    ["more than 2048 inputs", { model: "text-embedding-3-small", input: Array(2049).fill("x") }, 400],
  ])("refuses %s before any upstream call and moves nothing", async (_name, body, status) => {
    const token = await gateway.createFundedToken(1_000_000n);
    const calls = gateway.openai.requests.length + gateway.openrouter.requests.length;
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/embeddings`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(status);
    expect(gateway.openai.requests.length + gateway.openrouter.requests.length).toBe(calls);
    expect((await gateway.balanceOf(token)).balance).toBe(1_000_000n);
  });

  it("fails over to the next source; when every source fails the hold goes back whole", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const served = await client(token)
      .embeddings.create({ model: "text-embedding-3-small", input: "[fake:fail=fake-openai] hello" })
      .withResponse();
    expect(served.response.headers.get("x-pod-provider-id")).toBe("openrouter");
    const before = await gateway.balanceOf(token);
    await expect(
      client(token).embeddings.create({
        model: "text-embedding-3-small",
        input: "[fake:fail=fake-openai] [fake:fail=fake-openrouter]",
      }),
    ).rejects.toMatchObject({ status: 502 });
    expect(await gateway.balanceOf(token)).toEqual(before);
  });

  it("an unfunded token is refused with 402 before any upstream call", async () => {
    const { token } = await gateway.register();
    await expect(
      client(token).embeddings.create({ model: "text-embedding-3-small", input: "hello" }),
    ).rejects.toMatchObject({ status: 402 });
  });
});
