import { createServer, request as httpRequest, type Server } from "node:http";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usageRecords } from "../../lib/db/schema";
import { releaseExpiredHolds } from "../../lib/ledger/holds";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

/**
 * Issue 9: a request keeps its hold however long it runs; a client that stops reading is
 * cut off; a non-streamed body that stalls or never ends is bounded.
 */
let gateway: TestGateway;
let custom: Server;
let customUrl: string;
let customAborts = 0;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  // An OpenAI-format upstream that misbehaves on purpose, steered by the prompt.
  custom = createServer((request, response) => {
    let raw = "";
    request.on("data", (chunk: Buffer) => {
      raw += chunk.toString("utf8");
    });
    request.on("end", () => {
      response.once("close", () => {
        if (!response.writableFinished) customAborts += 1;
      });
      if (raw.includes("no-headers")) return; // never answers, not even its headers
      if (raw.includes("stall-body")) {
        response.writeHead(200, { "content-type": "application/json" });
        response.write('{"id":"chatcmpl-stall",');
        return; // never ends
      }
      if (raw.includes("huge-body")) {
        response.writeHead(200, { "content-type": "application/json" });
        const piece = "x".repeat(64 * 1024);
        response.write('{"id":"chatcmpl-huge","pad":"');
        const pump = () => {
          while (!response.destroyed && response.write(piece)) {
            // keep writing until the socket pushes back
          }
          if (!response.destroyed) response.once("drain", pump);
        };
        pump();
        return;
      }
      // An endless, fast stream: only a reader that stops reading can stop it (or the gateway).
      response.writeHead(200, { "content-type": "text/event-stream" });
      const frame = `data: ${JSON.stringify({
        id: "c",
        object: "chat.completion.chunk",
        created: 1,
        model: "gpt-4o-mini",
        choices: [{ index: 0, delta: { content: "y".repeat(16 * 1024) }, finish_reason: null }],
      })}\n\n`;
      const pump = () => {
        while (!response.destroyed && response.write(frame)) {
          // until backpressure
        }
        if (!response.destroyed) response.once("drain", pump);
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => custom.listen(0, "127.0.0.1", resolve));
  const address = custom.address();
  customUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/v1`;
  gateway = await startTestGateway({
    env: {
      HOLD_TTL_SECONDS: "2",
      STREAM_WRITE_TIMEOUT_MS: "1500",
      UPSTREAM_TIMEOUT_MS: "1500",
      MAX_UPSTREAM_BODY_BYTES: String(1024 * 1024),
      // The misbehaving server stands in for OpenRouter, the cheapest source of llama-3.3-70b.
      OPENROUTER_BASE_URL: customUrl,
    },
  });
});
afterAll(async () => {
  await gateway.close();
  custom.closeAllConnections();
  await new Promise<void>((resolve) => custom.close(() => resolve()));
});

async function usageOf(requestId: string) {
  const rows = await gateway.app.database.db
    .select()
    .from(usageRecords)
    .where(eq(usageRecords.requestId, requestId));
  return rows[0];
}

describe("a request that outlives HOLD_TTL_SECONDS", () => {
  it("keeps its hold while it runs: the sweeper cannot take it, and it is billed in full", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const pending = fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        stream: true,
        max_tokens: 100,
        stream_options: { include_usage: true },
        messages: [{ role: "user", content: "long [fake:tokens=25] [fake:slow=160]" }],
      }),
    });
    const response = await pending;
    await sleep(3_000); // past the 2 s TTL
    expect(await releaseExpiredHolds(gateway.app.database.db)).toBe(0);
    expect((await gateway.balanceOf(token)).held).toBeGreaterThan(0n);
    const text = await response.text();
    expect(text).toContain("[DONE]");
    const usage = await usageOf(response.headers.get("x-request-id") ?? "");
    expect(usage?.outputTokens).toBe(25);
    expect(await gateway.balanceOf(token)).toMatchObject({
      held: 0n,
      balance: 1_000_000n - (usage?.costMicrounits ?? 0n),
    });
  });
});

describe("a client that stops reading its stream", () => {
  it("is cut off after STREAM_WRITE_TIMEOUT_MS: upstream aborted, hold settled", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const abortsBefore = customAborts;
    const body = JSON.stringify({
      model: "llama-3.3-70b",
      stream: true,
      max_tokens: 100_000,
      messages: [{ role: "user", content: "endless" }],
    });
    const url = new URL(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`);
    const requestId = await new Promise<string>((resolve, reject) => {
      const outgoing = httpRequest(
        url,
        { method: "POST", headers: { "content-type": "application/json" } },
        (incoming) => {
          incoming.pause(); // reads nothing more: the socket fills, the gateway's writes stall
          resolve(String(incoming.headers["x-request-id"] ?? ""));
          incoming.on("error", () => undefined);
        },
      );
      outgoing.on("error", reject);
      outgoing.end(body);
    });
    expect(requestId).not.toBe("");
    await expect.poll(() => customAborts, { timeout: 15_000, interval: 200 }).toBeGreaterThan(abortsBefore);
    await expect
      .poll(async () => (await usageOf(requestId))?.outcome, { timeout: 5_000 })
      .toBe("client_stalled");
    expect((await gateway.balanceOf(token)).held).toBe(0n);
  });
});

describe("a non-streamed upstream body", () => {
  const ask = (token: string, content: string) =>
    fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "llama-3.3-70b", max_tokens: 10, messages: [{ role: "user", content }] }),
    });

  it("that stalls after its headers times out at UPSTREAM_TIMEOUT_MS with a 504; nothing is charged", async () => {
    const token = await gateway.createFundedToken(100_000n);
    const started = Date.now();
    const response = await ask(token, "stall-body");
    expect(response.status).toBe(504);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(await gateway.balanceOf(token)).toEqual({ balance: 100_000n, held: 0n, available: 100_000n });
  });

  it("larger than MAX_UPSTREAM_BODY_BYTES is refused with a 502, not buffered; nothing is charged", async () => {
    const token = await gateway.createFundedToken(100_000n);
    const response = await ask(token, "huge-body");
    expect(response.status).toBe(502);
    expect(await response.text()).toMatch(/exceeds 1048576 bytes/);
    expect(await gateway.balanceOf(token)).toEqual({ balance: 100_000n, held: 0n, available: 100_000n });
  });
});

describe("an upstream that never sends its headers", () => {
  const body = JSON.stringify({
    model: "llama-3.3-70b",
    max_tokens: 10,
    messages: [{ role: "user", content: "no-headers" }],
  });

  it("is aborted at UPSTREAM_TIMEOUT_MS with a 504; nothing is charged", async () => {
    const token = await gateway.createFundedToken(100_000n);
    const abortsBefore = customAborts;
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(response.status).toBe(504);
    await expect.poll(() => customAborts, { timeout: 5_000, interval: 50 }).toBeGreaterThan(abortsBefore);
    expect(await gateway.balanceOf(token)).toEqual({ balance: 100_000n, held: 0n, available: 100_000n });
  });

  it("is aborted as soon as the client goes away, not at the timeout; nothing is charged", async () => {
    const token = await gateway.createFundedToken(100_000n);
    const abortsBefore = customAborts;
    const url = new URL(`${gateway.baseUrl}/proxy/${token}/v1/chat/completions`);
    const outgoing = httpRequest(url, { method: "POST", headers: { "content-type": "application/json" } });
    outgoing.on("error", () => undefined);
    outgoing.end(body);
    await sleep(200);
    const gone = Date.now();
    outgoing.destroy();
    // The headers timeout is 1.5 s from the attempt's start: an abort well before it is the client's.
    await expect.poll(() => customAborts, { timeout: 1_000, interval: 20 }).toBeGreaterThan(abortsBefore);
    expect(Date.now() - gone).toBeLessThan(1_000);
    await expect.poll(async () => (await gateway.balanceOf(token)).held, { timeout: 5_000 }).toBe(0n);
    expect(await gateway.balanceOf(token)).toEqual({ balance: 100_000n, held: 0n, available: 100_000n });
  });
});
