import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatBody, startX402TestGateway, type X402TestGateway } from "../../helpers/x402-gateway";
import {
  balanceProof,
  decodeQuote,
  encodePaymentSignature,
  nativeEntry,
  payNative,
} from "../../helpers/x402-self-broadcast-client";

let x402: X402TestGateway;

beforeAll(async () => {
  x402 = await startX402TestGateway({ env: { X402_REQUIRE_PAYER_PROOF: "true" } });
});
afterAll(async () => {
  await x402?.close();
});

const network = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";

describe("X402_REQUIRE_PAYER_PROOF=true", () => {
  it("a harvested transfer cannot serve someone else's quote; the payer's own proof settles it", async () => {
    const victim = await x402.chain.fundedWallet({ usdc: 5_000_000n });
    const body = chatBody("proof required [fake:tokens=3]");
    const victimQuote = decodeQuote(await x402.post("openai", body));
    const entry = nativeEntry(victimQuote, "USDC");
    const signature = await payNative({
      rpc: x402.chain.solana.rpc,
      wallet: victim,
      asset: "USDC",
      payTo: entry.pay_to,
      amount: BigInt(entry.amount_microunits),
      usdcMint: x402.chain.solana.usdcMint,
    });

    // A watcher replays the victim's transfer, naming the victim as payer, for its own quote.
    const attackerQuote = decodeQuote(await x402.post("openai", body));
    const header = (quoteId: string, proof?: string) => ({
      "PAYMENT-SIGNATURE": encodePaymentSignature({
        quote_id: quoteId,
        network,
        asset: "USDC",
        payer_wallet: victim.address,
        signature,
        ...(proof ? { proof } : {}),
      }),
    });
    const upstreamBefore = x402.upstreamRequests();
    const harvested = await x402.post("openai", body, header(attackerQuote.quote_id));
    expect(harvested.status).toBe(400);
    expect(((await harvested.json()) as { error: { message: string } }).error.message).toContain(
      "require proof",
    );
    expect(x402.upstreamRequests()).toBe(upstreamBefore);
    expect((await x402.walletBalance(victim.address)).balance).toBe(0n);

    const own = await x402.post(
      "openai",
      body,
      header(victimQuote.quote_id, await balanceProof(victim, victimQuote.quote_id)),
    );
    expect(own.status).toBe(200);
    expect(own.headers.get("payment-response")).toBeTruthy();
  });
});
