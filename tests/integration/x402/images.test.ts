import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyLedger } from "../../../lib/ledger/verify-ledger";
import { startX402TestGateway, type X402TestGateway } from "../../helpers/x402-gateway";
import { fetchWithSelfBroadcast } from "../../helpers/x402-self-broadcast-client";

/**
 * Images over x402: a wallet with no account is quoted `n` × the per-image price, pays it
 * on the local chain, and gets its image, charged per image delivered out of the payment.
 */
let x402: X402TestGateway;

beforeAll(async () => {
  x402 = await startX402TestGateway();
});
// Whatever was paid, charged or credited back, the books balance.
afterAll(async () => {
  const broken = await verifyLedger(x402.gateway.app.database.db);
  await x402.close();
  expect(broken).toEqual([]);
});

const send = (body: string) => (headers: Record<string, string>) =>
  fetch(`${x402.gateway.baseUrl}/proxy/x402/v1/images/generations`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });

describe("images bought with x402", () => {
  it("a payer buys one image: quoted at the price per image, charged exactly it", async () => {
    const wallet = await x402.chain.fundedWallet({ usdc: 5_000_000n });
    const body = JSON.stringify({
      model: "dall-e-2",
      prompt: "a paid lighthouse",
      n: 1,
      response_format: "b64_json",
    });
    const before = x402.gateway.openai.requests.length;
    const { response, quote } = await fetchWithSelfBroadcast(send(body), {
      rpc: x402.chain.solana.rpc,
      wallet,
      asset: "USDC",
      usdcMint: x402.chain.solana.usdcMint,
    });
    expect(response.status).toBe(200);
    const result = (await response.json()) as { data: Array<{ b64_json?: string }> };
    expect(result.data).toHaveLength(1);
    expect(response.headers.get("x-pod-cost-microunits")).toBe("20000");
    const receipt = JSON.parse(
      Buffer.from(response.headers.get("payment-response") ?? "", "base64").toString("utf8"),
    ) as { charged_microunits: number; cap_microunits: number };
    expect(receipt.charged_microunits).toBe(20_000);
    expect(receipt.cap_microunits).toBeGreaterThanOrEqual(20_000);
    expect(quote.accepts.length).toBeGreaterThan(0);
    // Only the paid request reached the upstream; the quote asked for nothing.
    expect(x402.gateway.openai.requests.length).toBe(before + 1);
    // What was paid beyond the charge stays as the wallet's balance.
    const balance = await x402.walletBalance(wallet.address);
    expect(balance.held).toBe(0n);
    expect(balance.balance).toBe(BigInt(receipt.cap_microunits) - 20_000n);
  });

  it("an image that fails after payment costs nothing: the payment stays credited to the wallet", async () => {
    const wallet = await x402.chain.fundedWallet({ usdc: 5_000_000n });
    const body = JSON.stringify({ model: "dall-e-2", prompt: "a storm [fake:error=500]" });
    const { response } = await fetchWithSelfBroadcast(send(body), {
      rpc: x402.chain.solana.rpc,
      wallet,
      asset: "USDC",
      usdcMint: x402.chain.solana.usdcMint,
    });
    expect(response.status).toBe(502);
    const balance = await x402.walletBalance(wallet.address);
    expect(balance).toMatchObject({ held: 0n });
    expect(balance.balance).toBeGreaterThanOrEqual(20_000n);
  });
});
