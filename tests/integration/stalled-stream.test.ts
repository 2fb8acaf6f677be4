import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../helpers/gateway";

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ env: { UPSTREAM_TIMEOUT_MS: "400" } });
});
afterAll(async () => {
  await gateway.close();
});

describe("an upstream that stalls mid-stream", () => {
  it("is aborted after UPSTREAM_TIMEOUT_MS of silence: in-band error, usage so far billed, hold settled", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const client = new OpenAI({
      baseURL: `${gateway.baseUrl}/proxy/${token}/v1`,
      apiKey: "pod",
      maxRetries: 0,
    });
    const stream = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "stall [fake:tokens=10] [fake:slow=1500]" }],
      stream: true,
    });
    const error = await (async () => {
      for await (const _chunk of stream) {
        // drain until the gateway gives up
      }
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(String((error as Error).message)).toContain("upstream sent nothing");
    await expect.poll(() => gateway.openai.abortedRequests, { timeout: 5_000 }).toBeGreaterThan(0);
    // Settled right after the error's last byte: the relayed content is counted first.
    await expect.poll(() => gateway.balanceOf(token).then((balance) => balance.held)).toBe(0n);
    expect((await gateway.balanceOf(token)).balance).toBeLessThan(1_000_000n);
  });

  it("ends a Responses stream with error + response.failed, once, in the Responses vocabulary", async () => {
    const token = await gateway.createFundedToken(1_000_000n);
    const response = await fetch(`${gateway.baseUrl}/proxy/${token}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "gpt-4o-mini",
        input: "stall [fake:tokens=10] [fake:slow=1500]",
        stream: true,
      }),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    const events = [...text.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
    expect(events[0]).toBe("response.created");
    expect(events.slice(-2)).toEqual(["error", "response.failed"]);
    expect(events.filter((event) => event === "error")).toHaveLength(1);
    // The last data line: a usage receipt may follow it as an SSE comment, which clients skip.
    const failed = JSON.parse(
      text
        .trim()
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .at(-1)
        ?.replace(/^data: /, "") ?? "{}",
    ) as {
      response: { status: string; error: { code: string; message: string } };
    };
    expect(failed.response.status).toBe("failed");
    expect(failed.response.error.code).toBe("upstream_timeout");
    await expect.poll(async () => (await gateway.balanceOf(token)).held, { timeout: 5_000 }).toBe(0n);
  });
});
