import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostTrustEvents } from "../../../lib/db/schema";
import { verifyLedger } from "../../../lib/ledger/verify-ledger";
import { createMarketplaceFixture, type MarketplaceFixture } from "../../helpers/marketplace-fixture";
import { chatBody, startX402TestGateway, type X402TestGateway } from "../../helpers/x402-gateway";
import { fetchWithSelfBroadcast } from "../../helpers/x402-self-broadcast-client";

/**
 * x402 jobs are real traffic too: a marketplace job paid with x402 is followed by a hidden
 * canary at the same share as a token's, so a host cannot serve paying wallets another model
 * and be checked only on prepaid traffic.
 */
let x402: X402TestGateway;
let market: MarketplaceFixture;

beforeAll(async () => {
  x402 = await startX402TestGateway({ env: { CANARY_SHARE: "1", CANARY_MAX_DELAY_MS: "0" } });
  market = createMarketplaceFixture(x402.gateway);
});
afterAll(async () => {
  await market?.cleanup();
  if (x402) expect(await verifyLedger(x402.gateway.app.database.db)).toEqual([]);
  await x402?.close();
});

describe("canaries after x402 jobs", () => {
  it("a paid marketplace job to an agent serving a smaller model is followed by a failed canary", async () => {
    const cheat = await market.agent({
      offers: [{ model: "gpt-4o-mini", input: 50_000, output: 100_000 }],
      voice: "smaller",
    });
    const wallet = await x402.chain.fundedWallet({ usdc: 5_000_000n });
    // A long answer at 0.7: one canary's evidence is enough to fail it.
    const body = chatBody("Tell me about tides.", { max_tokens: 900, temperature: 0.7 });
    const { response } = await fetchWithSelfBroadcast(
      (headers) => x402.post("openai", body, { ...headers, "X-Pod-Routing-Mode": "marketplace-only" }),
      { rpc: x402.chain.solana.rpc, wallet, asset: "USDC", usdcMint: x402.chain.solana.usdcMint },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("x-pod-provider-id")).toBe(cheat.host.providerId);
    await response.text();
    const kinds = async () =>
      (
        await x402.gateway.app.database.db
          .select({ kind: hostTrustEvents.kind })
          .from(hostTrustEvents)
          .where(eq(hostTrustEvents.hostId, cheat.host.providerId))
      ).map((row) => row.kind);
    await expect.poll(kinds, { timeout: 20_000 }).toContain("canary_fail");
  });
});
