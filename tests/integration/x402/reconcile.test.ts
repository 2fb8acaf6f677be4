import { x402Client, x402HTTPClient } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { budgetDay } from "../../../lib/chains/daily-fee-budget";
import { SOLANA_DEVNET_CAIP2 } from "../../../lib/chains/solana/constants";
import { createSvmCosigner } from "../../../lib/chains/solana/svm-cosigner";
import { findClaim, insertPendingClaim } from "../../../lib/x402/core/payment-claims";
import { consumeQuote, findQuote, pruneExpiredQuotes } from "../../../lib/x402/core/quote-store";
import { exactOptionFor } from "../../../lib/x402/rails/solana/mechanisms";
import { reconcilePendingClaims } from "../../../lib/x402/rails/solana/reconcile-claims";
import { standardRequirements } from "../../../lib/x402/rails/solana/solana-accepts";
import { solanaRailOf } from "../../../lib/x402/rails/solana/solana-rail";
import { reserveSponsoredFee, sponsoredFeesSpent } from "../../../lib/x402/rails/solana/sponsored-fee-budget";
import { chatBody, startX402TestGateway, type X402TestGateway } from "../../helpers/x402-gateway";
import { decodeQuote } from "../../helpers/x402-self-broadcast-client";

let x402: X402TestGateway;

beforeAll(async () => {
  x402 = await startX402TestGateway();
  const solana = solanaRailOf(x402.gateway.app.x402.rails());
  const services = await solana.services();
  if (!services.feePayer) throw new Error("the test gateway has a fee payer");
  // A short confirmation wait, so a held confirmation leaves the claim pending quickly.
  await solana.configure({
    cosigner: createSvmCosigner({
      rpcUrl: x402.chain.solana.rpcUrl,
      feePayer: services.feePayer,
      network: services.network,
      confirmTimeoutMs: 300,
      pollIntervalMs: 50,
    }),
  });
});
afterAll(async () => {
  await x402?.close();
});

const reconcileDeps = () => ({
  database: x402.gateway.app.database.db,
  holdTtlSeconds: x402.gateway.app.env.HOLD_TTL_SECONDS,
});

async function standardHeader(walletUsdc: bigint, body: string) {
  const wallet = await x402.chain.fundedWallet({ usdc: walletUsdc, lamports: 0n });
  const quoteResponse = await x402.post("openai", body);
  const client = new x402Client().register(
    SOLANA_DEVNET_CAIP2,
    new ExactSvmScheme(wallet, { rpcUrl: x402.chain.solana.rpcUrl }),
  );
  const http = new x402HTTPClient(client);
  const payload = await client.createPaymentPayload(
    http.getPaymentRequiredResponse((name) => quoteResponse.headers.get(name)),
  );
  return {
    wallet,
    quote: decodeQuote(quoteResponse),
    payload,
    header: http.encodePaymentSignatureHeader(payload),
  };
}

async function ageClaims() {
  await x402.gateway.app.database.db.execute(
    sql`UPDATE x402_payments SET created_at = now() - interval '10 minutes' WHERE status = 'pending'`,
  );
}

describe("co-signed payments left pending are finished later", () => {
  it("a transaction that landed after its request gave up is credited in full to the payer", async () => {
    const body = chatBody("slow confirmation");
    const { wallet, quote, header } = await standardHeader(1_000_000n, body);
    const upstreamBefore = x402.upstreamRequests();
    x402.chain.solana.holdConfirmations();
    let pending: Response;
    try {
      pending = await x402.post("openai", body, header);
    } finally {
      x402.chain.solana.releaseConfirmations();
    }
    expect(pending.status).toBe(400);
    expect(((await pending.json()) as { error: { message: string } }).error.message).toContain(
      "settlement pending",
    );
    expect(await x402.walletBalance(wallet.address)).toMatchObject({ balance: 0n });

    await ageClaims();
    const services = await solanaRailOf(x402.gateway.app.x402.rails()).services();
    expect(await reconcilePendingClaims(reconcileDeps(), services)).toBe(1);
    // No request is left to serve: the whole payment is the payer's credit.
    expect(await x402.walletBalance(wallet.address)).toEqual({
      balance: 10_000n,
      held: 0n,
      available: 10_000n,
    });
    expect(x402.upstreamRequests()).toBe(upstreamBefore);

    const again = await x402.post("openai", body, header);
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error: { message: string } }).error.message).toContain(
      "already settled",
    );
    expect((await findQuote(x402.gateway.app.database.db, quote.quote_id))?.consumedAt).not.toBeNull();
  });

  it("a transaction that can never land releases its claim, its quote and its fee reservation", async () => {
    const database = x402.gateway.app.database.db;
    const services = await solanaRailOf(x402.gateway.app.x402.rails()).services();
    const cosigner = services.cosigner;
    if (!cosigner) throw new Error("no co-signer");
    const body = chatBody("never sent");
    const { wallet, quote, payload } = await standardHeader(1_000_000n, body);
    const stored = await findQuote(database, quote.quote_id);
    if (!stored) throw new Error("quote not stored");
    const option = exactOptionFor(stored, "USDC", x402.chain.solana.usdcMint);
    if (!option) throw new Error("the quote has a co-signed USDC option");
    const requirements = standardRequirements(stored, option, x402.chain.solana.usdcMint, 300);
    const cosigned = await cosigner.cosignAndPredictSignature(String(payload.payload.transaction), {
      ...requirements,
      network: SOLANA_DEVNET_CAIP2,
    });
    if (cosigned.type !== "cosigned") throw new Error(cosigned.message);
    // What a process that died right after writing its claim leaves behind.
    const day = budgetDay(new Date());
    const spentBefore = await sponsoredFeesSpent(database, day);
    await database.transaction(async (transaction) => {
      await insertPendingClaim(transaction, {
        network: SOLANA_DEVNET_CAIP2,
        signature: cosigned.signature,
        quoteId: stored.id,
        scheme: "standard",
        asset: "USDC",
        payerWallet: wallet.address,
        signedTransaction: cosigned.signedTransaction,
        sponsoredFeeLamports: 10_001n,
      });
      await consumeQuote(transaction, stored.id, cosigned.signature);
      await reserveSponsoredFee(transaction, { day, lamports: 10_001n, dailyBudgetLamports: 1_000_000n });
    });
    x402.chain.solana.expireBlockhashes();
    await ageClaims();
    expect(await reconcilePendingClaims(reconcileDeps(), services)).toBe(1);
    expect(await findClaim(database, SOLANA_DEVNET_CAIP2, cosigned.signature)).toBeUndefined();
    expect((await findQuote(database, stored.id))?.consumedAt).toBeNull();
    expect(await sponsoredFeesSpent(database, day)).toBe(spentBefore);
    expect(await x402.chain.solana.getTokenBalance(wallet.address, x402.chain.solana.usdcMint)).toBe(
      1_000_000n,
    );
  });

  it("prunes quotes expired over a day ago unless a payment references them", async () => {
    const database = x402.gateway.app.database.db;
    const stale = decodeQuote(await x402.post("openai", chatBody("stale quote")));
    const fresh = decodeQuote(await x402.post("openai", chatBody("fresh quote")));
    const paid = await database.execute(sql`SELECT quote_id FROM x402_payments LIMIT 1`);
    const paidQuoteId = (Array.isArray(paid) ? paid : (paid as { rows: unknown[] }).rows)[0] as {
      quote_id: string;
    };
    await database.execute(
      sql`UPDATE x402_quotes SET expires_at = now() - interval '2 days'
          WHERE id IN (${stale.quote_id}, ${paidQuoteId.quote_id})`,
    );
    await pruneExpiredQuotes(x402.gateway.app.database.db);
    expect(await findQuote(database, stale.quote_id)).toBeUndefined();
    expect(await findQuote(database, fresh.quote_id)).toBeDefined();
    expect(await findQuote(database, paidQuoteId.quote_id)).toBeDefined();
  });
});
