import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyLedger } from "../../lib/ledger/verify-ledger";
import { fakePngBase64 } from "../helpers/fake-images";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

/**
 * POST /proxy/<token>/v1/images/generations and /edits with the official openai SDK: held at
 * `n` × the per-image price for the size and quality, billed per image delivered, nothing moved
 * when no image comes back or the request is refused.
 */
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  expect(await verifyLedger(gateway.app.database.db)).toEqual([]);
  await gateway.close();
});

const client = (token: string, headers: Record<string, string> = {}) =>
  new OpenAI({
    baseURL: `${gateway.baseUrl}/proxy/${token}/v1`,
    apiKey: "pod",
    maxRetries: 0,
    defaultHeaders: headers,
  });
const png = () => toFile(Buffer.from(fakePngBase64, "base64"), "image.png", { type: "image/png" });
const funded = 1_000_000n;

async function spent(token: string): Promise<bigint> {
  const balance = await gateway.balanceOf(token);
  expect(balance.held).toBe(0n);
  return funded - balance.balance;
}

describe("image generations through the openai SDK", () => {
  it("generates n images, billed exactly n × the price per image", async () => {
    const token = await gateway.createFundedToken(funded);
    const { data: result, response } = await client(token)
      .images.generate({
        model: "dall-e-2",
        prompt: "a lighthouse at dusk",
        n: 3,
        response_format: "b64_json",
      })
      .withResponse();
    expect(result.data).toHaveLength(3);
    expect(result.data?.[0]?.b64_json).toBe(fakePngBase64);
    expect(response.headers.get("x-pod-cost-microunits")).toBe("60000");
    expect(await spent(token)).toBe(60_000n);
    // The upstream was asked for the size billed (the model's default), under its own model id.
    expect(gateway.openai.requests.at(-1)).toMatchObject({
      path: "/v1/images/generations",
      body: { model: "dall-e-2", n: 3, size: "1024x1024", prompt: "a lighthouse at dusk" },
    });
  });

  it("prices by size and quality: 512x512 dall-e-2, hd dall-e-3, urls", async () => {
    const token = await gateway.createFundedToken(funded);
    const small = await client(token).images.generate({
      model: "dall-e-2",
      prompt: "a fox",
      n: 2,
      size: "512x512",
    });
    expect(small.data?.[0]?.url).toMatch(/^https:\/\//);
    expect(await spent(token)).toBe(36_000n);
    const hd = await client(token).images.generate({
      model: "dall-e-3",
      prompt: "a fox",
      size: "1792x1024",
      quality: "hd",
    });
    expect(hd.data?.[0]?.revised_prompt).toContain("a fox");
    expect(await spent(token)).toBe(36_000n + 120_000n);
  });

  it("gpt-image-1: an omitted quality is asked and billed at the default; auto bills what the reply says it made", async () => {
    const token = await gateway.createFundedToken(funded);
    await client(token).images.generate({ model: "gpt-image-1", prompt: "a kite" });
    expect(gateway.openai.requests.at(-1)?.body).toMatchObject({ quality: "medium", size: "1024x1024" });
    expect(await spent(token)).toBe(42_000n);
    const { response } = await client(token)
      .images.generate({ model: "gpt-image-1", prompt: "a kite", quality: "auto", size: "auto" })
      .withResponse();
    // Held at the dearest it could make (high 1536), billed at low 1024x1024, what came back.
    expect(response.headers.get("x-pod-cost-microunits")).toBe("11000");
    expect(await spent(token)).toBe(53_000n);
  });

  it("bills only the images delivered when fewer come back than asked", async () => {
    const token = await gateway.createFundedToken(funded);
    const result = await client(token).images.generate({
      model: "dall-e-2",
      prompt: "two owls [fake:images=1]",
      n: 2,
    });
    expect(result.data).toHaveLength(1);
    expect(await spent(token)).toBe(20_000n);
  });

  it("a failed image costs nothing: an upstream error, or an answer with no image", async () => {
    const token = await gateway.createFundedToken(funded);
    await expect(
      client(token).images.generate({ model: "dall-e-2", prompt: "a storm [fake:error=500]" }),
    ).rejects.toMatchObject({ status: 502 });
    await expect(
      client(token).images.generate({ model: "dall-e-2", prompt: "nothing [fake:images=0]", n: 2 }),
    ).rejects.toMatchObject({ status: 502 });
    expect(await spent(token)).toBe(0n);
  });

  it("refuses before any upstream call: too little balance, a size not sold, a ceiling below n × price, a chat model", async () => {
    const calls = gateway.openai.requests.length;
    const poor = await gateway.createFundedToken(39_999n);
    await expect(
      client(poor).images.generate({ model: "dall-e-2", prompt: "two cats", n: 2 }),
    ).rejects.toMatchObject({ status: 402 });
    const token = await gateway.createFundedToken(funded);
    await expect(
      client(token).images.generate({ model: "dall-e-3", prompt: "a cat", size: "256x256" }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(
      client(token, { "X-Pod-Max-Price-Request": "39999" }).images.generate({
        model: "dall-e-2",
        prompt: "a cat",
        n: 2,
      }),
    ).rejects.toMatchObject({ status: 402, error: { type: "no_provider_at_price" } });
    await expect(
      client(token).images.generate({ model: "gpt-4o-mini", prompt: "a cat" }),
    ).rejects.toMatchObject({ status: 400 });
    expect(gateway.openai.requests.length).toBe(calls);
    expect(await spent(token)).toBe(0n);
  });
});

describe("image edits through the openai SDK", () => {
  it("edits an image (multipart), billed per image delivered; the file reaches the upstream whole", async () => {
    const token = await gateway.createFundedToken(funded);
    const { data: result, response } = await client(token)
      .images.edit({ model: "dall-e-2", image: await png(), prompt: "add a hat", n: 2, size: "256x256" })
      .withResponse();
    expect(result.data).toHaveLength(2);
    expect(response.headers.get("x-pod-cost-microunits")).toBe("32000");
    expect(await spent(token)).toBe(32_000n);
    expect(gateway.openai.requests.at(-1)).toMatchObject({
      path: "/v1/images/edits",
      body: {
        model: "dall-e-2",
        prompt: "add a hat",
        n: "2",
        size: "256x256",
        image: {
          filename: "image.png",
          type: "image/png",
          bytes: Buffer.from(fakePngBase64, "base64").length,
        },
      },
    });
  });

  it("a model no source edits with is refused before anything is held", async () => {
    const token = await gateway.createFundedToken(funded);
    await expect(
      client(token).images.edit({ model: "dall-e-3", image: await png(), prompt: "add a hat" }),
    ).rejects.toMatchObject({ status: 503 });
    expect(await spent(token)).toBe(0n);
  });
});
