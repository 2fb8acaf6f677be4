import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../../lib/db/client";
import { chatBody, startX402TestGateway, type X402TestGateway } from "../../helpers/x402-gateway";

let x402: X402TestGateway;

beforeAll(async () => {
  x402 = await startX402TestGateway({ env: { X402_QUOTE_RATE_LIMIT_PER_MINUTE: "5" } });
});
afterAll(async () => {
  await x402?.close();
});

async function quoteRows(): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    x402.gateway.app.database.db,
    sql`SELECT count(*)::int AS n FROM x402_quotes`,
  );
  return Number(rows[0]?.n);
}

describe("unpaid x402 work is bounded", () => {
  it("a model nobody serves is 503 no_provider before any quote is written", async () => {
    const before = await quoteRows();
    const response = await x402.post("openai", chatBody("hi", { model: "nobody-serves-this-model" }));
    expect(response.status).toBe(503);
    expect(response.headers.get("payment-required")).toBeNull();
    expect(((await response.json()) as { error: unknown }).error).toMatchObject({
      type: "no_provider",
      message: "no healthy provider for model: nobody-serves-this-model",
    });
    expect(await quoteRows()).toBe(before);
  });

  it("limits unpaid quotes per client address: past the limit a 429 writes no row", async () => {
    const before = await quoteRows();
    const statuses: number[] = [];
    for (let index = 0; index < 8; index += 1) {
      statuses.push((await x402.post("openai", chatBody(`quote ${index}`))).status);
    }
    expect(statuses).toEqual([402, 402, 402, 402, 402, 429, 429, 429]);
    expect(await quoteRows()).toBe(before + 5);
  });
});
