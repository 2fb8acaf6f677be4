import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { receiptFile } from "../../../components/dashboard/receipt-file";
import { startTestGateway, type TestGateway } from "../../helpers/gateway";
import { streamReceipt, verifiedReceipt } from "../../helpers/receipts";

/**
 * Every billed request's receipt, as a caller gets it: in the `X-Pod-Receipt` header, or as a
 * stream's last SSE comment (which the official SDKs read past), stored and listed with the
 * token's activity, and verifiable offline against the published keys.
 */

let gateway: TestGateway;
let token: string;

beforeAll(async () => {
  gateway = await startTestGateway({ lease: true });
  token = await gateway.createFundedToken(20_000_000n);
}, 120_000);

afterAll(async () => {
  await gateway?.close();
});

const chat = (body: object) =>
  fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("usage receipts on requests", () => {
  it("a prepaid answer carries a receipt of its charge, counts, prices, source and bytes", async () => {
    const requestBody = JSON.stringify({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "hi [fake:tokens=5]" }],
    });
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: requestBody,
    });
    const body = await response.text();
    const jws = response.headers.get("x-pod-receipt") ?? "";
    const requestId = response.headers.get("x-request-id") ?? "";
    const receipt = await verifiedReceipt(gateway.baseUrl, jws, {
      requestId,
      requestBody,
      responseBody: body,
    });
    expect(receipt).toMatchObject({
      request_id: requestId,
      model: "gpt-4o-mini",
      source: { route: "centralized", provider_id: "openai" },
      charge: response.headers.get("x-pod-cost-microunits"),
      host_share: "0",
      outcome: "completed",
      usage: { counted_by: "upstream_report", bounded: false },
    });
    expect(receipt.usage.output_tokens).toBeGreaterThan(0);
    expect(BigInt(receipt.prices.output_per_1m)).toBeGreaterThan(0n);
  });

  it("the activity listed right after an answer carries its receipt (the listing writes what is queued)", async () => {
    // Receipts are queued and written a few milliseconds later; a listing that wrote the ledger's
    // queue but not theirs would show the request without its receipt in that moment.
    for (let index = 0; index < 5; index += 1) {
      const response = await chat({
        model: "gpt-4o-mini",
        messages: [{ role: "user", content: `listed at once ${index} [fake:tokens=3]` }],
      });
      await response.text();
      const jws = response.headers.get("x-pod-receipt");
      expect(jws).toBeTruthy();
      const requestId = response.headers.get("x-request-id");
      const activity = (await (
        await fetch(`${gateway.baseUrl}/proxy/${token}/transactions?kind=inference`)
      ).json()) as { transactions: Array<{ request_id: string; receipt: string | null }> };
      expect(activity.transactions.find((row) => row.request_id === requestId)?.receipt).toBe(jws);
    }
  });

  it("a stream ends with its receipt as an SSE comment over the bytes before it", async () => {
    const response = await chat({
      model: "gpt-4o-mini",
      stream: true,
      messages: [{ role: "user", content: "hi [fake:tokens=4]" }],
    });
    const text = await response.text();
    const { jws, covered } = streamReceipt(text);
    expect(covered).toContain("data: [DONE]");
    const receipt = await verifiedReceipt(gateway.baseUrl, jws, {
      requestId: response.headers.get("x-request-id") ?? "",
      responseBody: covered,
    });
    expect(receipt.usage.output_tokens).toBeGreaterThan(0);
    // Stored, and listed: fetched again by request id, and with the token's activity.
    const stored = await fetch(`${gateway.baseUrl}/proxy/${token}/receipts/${receipt.request_id}`);
    expect(await stored.json()).toEqual({ request_id: receipt.request_id, receipt: jws });
    const activity = (await (
      await fetch(`${gateway.baseUrl}/proxy/${token}/transactions?kind=inference`)
    ).json()) as {
      transactions: Array<{ request_id: string; receipt: string | null }>;
    };
    expect(activity.transactions.find((row) => row.request_id === receipt.request_id)?.receipt).toBe(jws);
    // The dashboard row's "Receipt" link saves exactly that receipt, as a file the checker reads.
    const file = receiptFile(jws, receipt.request_id);
    expect(file.download).toBe(`${receipt.request_id}.jws`);
    const saved = await (await fetch(file.href)).text();
    expect(saved).toBe(jws);
    expect((await verifiedReceipt(gateway.baseUrl, saved)).request_id).toBe(receipt.request_id);
  });

  it("a response-cache hit is billed, so it carries a receipt too: route cache, nothing counted, the hit's price", async () => {
    const body = {
      model: "gpt-4o-mini",
      temperature: 0,
      messages: [{ role: "user", content: "remember me [fake:tokens=40]" }],
    };
    const cached = (extra: object = {}) =>
      fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-pod-cache": "on" },
        body: JSON.stringify({ ...body, ...extra }),
      });
    const miss = await cached();
    expect(miss.headers.get("x-pod-cache")).toBe("miss");
    await miss.text();
    const hit = await cached();
    expect(hit.headers.get("x-pod-cache")).toBe("hit");
    const hitBody = await hit.text();
    const receipt = await verifiedReceipt(gateway.baseUrl, hit.headers.get("x-pod-receipt") ?? "", {
      requestId: hit.headers.get("x-request-id") ?? "",
      responseBody: hitBody,
    });
    expect(receipt.source).toEqual({ route: "cache", provider_id: "openai" });
    expect(receipt.usage).toMatchObject({ counted_by: "cache_hit", input_tokens: 0, output_tokens: 0 });
    expect(receipt.charge).toBe(hit.headers.get("x-pod-cost-microunits"));
    expect(BigInt(receipt.charge)).toBeGreaterThan(0n);
    expect(receipt.host_share).toBe("0");

    // Streamed, the hit ends with its receipt as the last SSE comment, over the bytes before it.
    const streamed = await cached({ stream: true });
    expect(streamed.headers.get("x-pod-cache")).toBe("hit");
    expect(streamed.headers.get("x-pod-receipt")).toBeNull();
    const { jws, covered } = streamReceipt(await streamed.text());
    expect(covered).toContain("data: [DONE]");
    const streamedReceipt = await verifiedReceipt(gateway.baseUrl, jws, {
      requestId: streamed.headers.get("x-request-id") ?? "",
      responseBody: covered,
    });
    expect(streamedReceipt.source.route).toBe("cache");
  });

  it("another token cannot fetch a receipt by its request id", async () => {
    const response = await chat({ model: "gpt-4o-mini", messages: [{ role: "user", content: "mine" }] });
    await response.text();
    const other = await gateway.createFundedToken(1_000_000n);
    const stolen = await fetch(
      `${gateway.baseUrl}/proxy/${other}/receipts/${response.headers.get("x-request-id")}`,
    );
    expect(stolen.status).toBe(404);
  });

  it("the official SDKs read streams with a receipt at the end as before, in both dialects", async () => {
    const openai = new OpenAI({
      baseURL: `${gateway.baseUrl}/proxy/${token}/v1`,
      apiKey: "pod",
      maxRetries: 0,
    });
    const stream = await openai.chat.completions.create({
      model: "gpt-4o-mini",
      stream: true,
      messages: [{ role: "user", content: "hi [fake:tokens=3]" }],
    });
    let streamed = "";
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? "";
    expect(streamed).toBe("Hello w1 w2");
    const anthropic = new Anthropic({
      baseURL: `${gateway.baseUrl}/proxy/${token}`,
      apiKey: "pod",
      maxRetries: 0,
    });
    const events = await anthropic.messages.create({
      model: "claude-haiku-4-5",
      max_tokens: 50,
      stream: true,
      messages: [{ role: "user", content: "hi [fake:tokens=2]" }],
    });
    let text = "";
    for await (const event of events)
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
    expect(text).toBe("Hello w1");
  });
});
