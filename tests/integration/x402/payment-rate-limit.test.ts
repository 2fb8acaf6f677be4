import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatBody, startX402TestGateway, type X402TestGateway } from "../../helpers/x402-gateway";
import { decodeQuote, encodePaymentSignature } from "../../helpers/x402-self-broadcast-client";

let x402: X402TestGateway;

beforeAll(async () => {
  x402 = await startX402TestGateway({ env: { X402_PAYMENT_RATE_LIMIT_PER_MINUTE: "2" } });
});
afterAll(async () => {
  await x402?.close();
});

describe("X402_PAYMENT_RATE_LIMIT_PER_MINUTE", () => {
  it("limits paid attempts per address before any chain lookup; quotes stay free", async () => {
    const body = chatBody("limited");
    const quote = decodeQuote(await x402.post("openai", body));
    const wallet = await x402.chain.fundedWallet();
    const header = {
      "PAYMENT-SIGNATURE": encodePaymentSignature({
        quote_id: quote.quote_id,
        network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
        asset: "USDC",
        payer_wallet: wallet.address,
        signature: "5".repeat(88),
      }),
    };
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const response = await x402.post("openai", body, header);
      statuses.push(response.status);
      if (response.status === 429) limited = response;
    }
    expect(statuses.slice(0, 2).every((status) => status === 400)).toBe(true);
    expect(statuses[2]).toBe(429);
    expect(Number(limited?.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await x402.post("openai", body)).status).toBe(402);
    expect(x402.upstreamRequests()).toBe(0);
  });
});
