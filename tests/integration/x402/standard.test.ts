import type { KeyPairSigner } from "@solana/kit";
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client, x402HTTPClient } from "@x402/fetch";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOLANA_DEVNET_CAIP2, WSOL_MINT } from "../../../lib/chains/solana/constants";
import { verifyLedger } from "../../../lib/ledger/verify-ledger";
import { findQuote } from "../../../lib/x402/core/quote-store";
import type { PaymentReceipt } from "../../../lib/x402/core/receipt";
import { reconcileOver } from "../../helpers/reconcile";
import { sendUsdcWithMemo } from "../../helpers/solana/usdc-deposit";
import { startX402Chain, type X402Chain } from "../../helpers/x402-chain";
import { chatBody, startX402TestGateway, type X402TestGateway } from "../../helpers/x402-gateway";
import { decodeQuote, fetchWithSelfBroadcast, type Quote } from "../../helpers/x402-self-broadcast-client";
import { buildStandardTransaction, systemTransfer } from "../../helpers/x402-standard-transactions";

let chain: X402Chain;
let x402: X402TestGateway;

beforeAll(async () => {
  chain = await startX402Chain();
  x402 = await startX402TestGateway({ chain });
});
afterAll(async () => {
  if (x402) expect(await verifyLedger(x402.gateway.app.database.db)).toEqual([]);
  await x402?.close();
  await chain?.close();
});

const path = "/proxy/x402/v1/chat/completions";

function payingClient(wallet: KeyPairSigner, onlyAsset?: string): x402Client {
  const client = new x402Client().register(
    SOLANA_DEVNET_CAIP2,
    new ExactSvmScheme(wallet, { rpcUrl: chain.solana.rpcUrl }),
  );
  if (onlyAsset) {
    // wSOL is not one of the default assets: allow it explicitly and pick that entry.
    client.setSpendControls(false);
    client.registerPolicy((_version, requirements) =>
      requirements.filter((entry) => entry.asset === onlyAsset),
    );
  }
  return client;
}

/** Records the PAYMENT-SIGNATURE a client sent, to replay it later. */
function recordingFetch(target: X402TestGateway, sent: string[]): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const header = request.headers.get("payment-signature");
    if (header) sent.push(header);
    return fetch(request.url.replace(/^http:\/\/[^/]+/, target.gateway.baseUrl), request);
  };
}

function post(target: X402TestGateway, body: string, headers: Record<string, string> = {}) {
  return fetch(`${target.gateway.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
}

async function standardPayload(wallet: KeyPairSigner, quoteResponse: Response): Promise<string> {
  const client = payingClient(wallet);
  const http = new x402HTTPClient(client);
  const required = http.getPaymentRequiredResponse((name) => quoteResponse.headers.get(name));
  const payload = await client.createPaymentPayload(required);
  const header = http.encodePaymentSignatureHeader(payload)["PAYMENT-SIGNATURE"];
  if (!header) throw new Error("no PAYMENT-SIGNATURE from the x402 client");
  return header;
}

function standardEntry(quote: Quote, asset: string): Record<string, unknown> {
  const entry = quote.accepts.find(
    (candidate) => candidate.asset === asset && "extra" in candidate && candidate.extra,
  );
  if (!entry) throw new Error(`no standard entry for ${asset}`);
  return entry;
}

async function errorMessage(response: Response): Promise<string> {
  return ((await response.json()) as { error: { message: string } }).error.message;
}

describe("standard x402 (exact, co-signed by our fee payer)", () => {
  it("the real @x402/fetch client pays a wallet with no SOL and gets a completion", async () => {
    const wallet = await chain.fundedWallet({ usdc: 1_000_000n, lamports: 0n });
    const feePayerBefore = chain.solana.getBalance(chain.feePayer.address);
    const payToBefore = await chain.solana.getTokenBalance(chain.payTo.address, chain.solana.usdcMint);
    const sent: string[] = [];
    const pay = wrapFetchWithPayment(recordingFetch(x402, sent), payingClient(wallet));
    const body = chatBody("standard path [fake:tokens=3]");
    const response = await pay(`${x402.gateway.baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { object: string }).object).toBe("chat.completion");
    const settle = decodePaymentResponseHeader(response.headers.get("payment-response") ?? "");
    expect(settle).toMatchObject({ success: true, network: SOLANA_DEVNET_CAIP2, payer: wallet.address });
    expect(settle.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    const receipt = settle as unknown as PaymentReceipt;
    expect(receipt.credited_microunits).toBe(10_000);
    expect(receipt.surplus_credited_microunits).toBe(10_000 - receipt.charged_microunits);

    expect(chain.solana.getBalance(wallet.address)).toBe(0n);
    expect(
      (await chain.solana.getTokenBalance(chain.payTo.address, chain.solana.usdcMint)) - payToBefore,
    ).toBe(10_000n);
    const feeSpent = feePayerBefore - chain.solana.getBalance(chain.feePayer.address);
    expect(feeSpent).toBe(10_001n);
    expect((await x402.walletBalance(wallet.address)).balance).toBe(
      BigInt(10_000 - receipt.charged_microunits),
    );

    // Re-sending the very same payload converges on the payment already made.
    const upstreamBefore = x402.upstreamRequests();
    const [header] = sent;
    const again = await post(x402, body, { "PAYMENT-SIGNATURE": header ?? "" });
    expect(again.status).toBe(400);
    expect(await errorMessage(again)).toContain(`transaction ${settle.transaction} was broadcast once`);
    expect(x402.upstreamRequests()).toBe(upstreamBefore);
    expect(feePayerBefore - chain.solana.getBalance(chain.feePayer.address)).toBe(feeSpent);
    expect(
      (await chain.solana.getTokenBalance(chain.payTo.address, chain.solana.usdcMint)) - payToBefore,
    ).toBe(10_000n);
  });

  it("the same payload sent concurrently is broadcast once and served once", async () => {
    const wallet = await chain.fundedWallet({ usdc: 1_000_000n, lamports: 0n });
    const body = chatBody("concurrent standard");
    const quoteResponse = await post(x402, body);
    const header = await standardPayload(wallet, quoteResponse);
    const feePayerBefore = chain.solana.getBalance(chain.feePayer.address);
    const upstreamBefore = x402.upstreamRequests();
    const responses = await Promise.all(
      Array.from({ length: 4 }, () => post(x402, body, { "PAYMENT-SIGNATURE": header })),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([200, 400, 400, 400]);
    expect(x402.upstreamRequests()).toBe(upstreamBefore + 1);
    expect(feePayerBefore - chain.solana.getBalance(chain.feePayer.address)).toBe(10_001n);
    expect(await chain.solana.getTokenBalance(wallet.address, chain.solana.usdcMint)).toBe(990_000n);
  });

  it("pays the wrapped-SOL standard entry; the credit is its value at the quote's rate", async () => {
    const wallet = await chain.fundedWallet({ lamports: 0n, wrappedLamports: 1_000_000_000n });
    const pay = wrapFetchWithPayment(recordingFetch(x402, []), payingClient(wallet, WSOL_MINT));
    const response = await pay(`${x402.gateway.baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: chatBody("wsol [fake:tokens=2]"),
    });
    expect(response.status).toBe(200);
    const receipt = JSON.parse(
      Buffer.from(response.headers.get("payment-response") ?? "", "base64").toString("utf8"),
    ) as PaymentReceipt;
    // One cent at $150/SOL, rounded up: 66,667 lamports, worth 10,000 microunits at that rate.
    expect(receipt).toMatchObject({ asset: "SOL", amount: "66667", credited_microunits: 10_000 });
  });

  it("reconciles the pay-to wallet both ways: every settled payment on chain, every USDC arrival a payment", async () => {
    expect((await reconcileOver(x402.gateway)).differences).toEqual([]);
    // USDC sent straight to pay-to, outside any quote: held by the operator, explained by nothing.
    const stranger = await chain.fundedWallet({ usdc: 500_000n, lamports: 10_000_000n });
    const signature = await sendUsdcWithMemo(chain.solana, {
      payer: stranger,
      owner: chain.payTo.address,
      amount: 123_457n,
      memo: "a gift",
    });
    const report = await reconcileOver(x402.gateway);
    expect(report.differences).toEqual([
      expect.objectContaining({ source: "solana", reference: signature, microunits: "123457" }),
    ]);
    expect(report.unexplained_microunits).toBe("123457");
  });
});

describe("standard transactions the co-signing rules forbid: refused before any signature", () => {
  const cases: Array<{
    name: string;
    reason: string;
    build: (context: { wallet: KeyPairSigner; quote: Quote; stranger: KeyPairSigner }) => Promise<string>;
  }> = [
    {
      name: "the fee payer listed in an instruction (a memo naming it)",
      reason: "fee_payer_in_instruction",
      build: ({ wallet, quote }) => build(wallet, quote, { feePayerInMemo: true }),
    },
    {
      name: "the fee payer's own tokens as the transfer source",
      reason: "fee_payer_in_instruction",
      build: ({ wallet, quote }) => build(wallet, quote, { authority: chain.feePayer }),
    },
    {
      name: "an unknown program (a System transfer)",
      reason: "unknown_program",
      build: ({ wallet, quote, stranger }) =>
        build(wallet, quote, { extra: [systemTransfer(wallet, stranger.address, 1_000n)] }),
    },
    {
      name: "a compute limit above the cap",
      reason: "compute_unit_limit_too_high",
      build: ({ wallet, quote }) => build(wallet, quote, { computeUnits: 1_400_000 }),
    },
    {
      name: "a priority fee above the cap",
      reason: "compute_unit_price_too_high",
      build: ({ wallet, quote }) => build(wallet, quote, { microLamportsPerUnit: 5_000_000n }),
    },
    {
      name: "two transfers",
      reason: "multiple_transfers",
      build: ({ wallet, quote }) => build(wallet, quote, { duplicateTransfer: true }),
    },
    {
      name: "a transfer to someone else's account",
      reason: "recipient_mismatch",
      build: ({ wallet, quote, stranger }) => build(wallet, quote, { destinationOwner: stranger.address }),
    },
    {
      name: "an amount other than the quoted one",
      reason: "amount_mismatch",
      build: ({ wallet, quote }) => build(wallet, quote, { amount: 9_999n }),
    },
    {
      name: "a memo that is not the quote's",
      reason: "memo_mismatch",
      build: ({ wallet, quote }) => build(wallet, quote, { memo: "pod-x402:someone-elses-quote" }),
    },
    {
      name: "a fee payer that is not ours",
      reason: "fee_payer_mismatch",
      build: ({ wallet, quote }) => build(wallet, quote, { feePayer: wallet }),
    },
  ];

  async function build(
    wallet: KeyPairSigner,
    quote: Quote,
    overrides: Partial<Parameters<typeof buildStandardTransaction>[0]>,
  ): Promise<string> {
    const entry = standardEntry(quote, chain.solana.usdcMint);
    const extra = entry.extra as { memo: string };
    return buildStandardTransaction({
      solana: chain.solana,
      wallet,
      feePayer: chain.feePayer.address,
      payTo: chain.payTo.address,
      mint: chain.solana.usdcMint,
      amount: BigInt(String(entry.amount)),
      memo: extra.memo,
      ...overrides,
    });
  }

  for (const testCase of cases) {
    it(`refuses ${testCase.name}`, async () => {
      const wallet = await chain.fundedWallet({ usdc: 1_000_000n });
      const stranger = await chain.fundedWallet();
      await chain.solana.createAta(stranger.address, chain.solana.usdcMint);
      await chain.solana.mintUsdc(chain.feePayer.address, 1_000_000n);
      const body = chatBody(`forbidden: ${testCase.name}`);
      const quoteResponse = await post(x402, body);
      const quote = decodeQuote(quoteResponse);
      const entry = standardEntry(quote, chain.solana.usdcMint);
      const transaction = await testCase.build({ wallet, quote, stranger });
      const feePayerBefore = chain.solana.getBalance(chain.feePayer.address);
      const upstreamBefore = x402.upstreamRequests();
      const header = Buffer.from(
        JSON.stringify({ x402Version: 2, accepted: entry, payload: { transaction } }),
      ).toString("base64");
      const response = await post(x402, body, { "PAYMENT-SIGNATURE": header });
      expect(response.status).toBe(400);
      const message = await errorMessage(response);
      expect(message).toContain("refused before co-signing");
      expect(message).toContain(testCase.reason);
      // Nothing signed, nothing sent, nothing served, nothing credited, the quote still open.
      expect(chain.solana.getBalance(chain.feePayer.address)).toBe(feePayerBefore);
      expect(await chain.solana.getTokenBalance(wallet.address, chain.solana.usdcMint)).toBe(1_000_000n);
      expect(x402.upstreamRequests()).toBe(upstreamBefore);
      expect((await x402.walletBalance(wallet.address)).balance).toBe(0n);
      expect((await findQuote(x402.gateway.app.database.db, quote.quote_id))?.consumedAt).toBeNull();
    });
  }
});

describe("the sponsored-fee daily budget", () => {
  it("when exhausted the error says so, and self-broadcast payments keep working", async () => {
    // Room for one sponsored settlement (10,001 lamports) a day.
    const tight = await startX402TestGateway({
      chain,
      env: { X402_SPONSORED_FEE_DAILY_BUDGET_LAMPORTS: "15000" },
    });
    try {
      const wallet = await chain.fundedWallet({ usdc: 1_000_000n });
      const pay = wrapFetchWithPayment(recordingFetch(tight, []), payingClient(wallet));
      const request = (content: string) =>
        pay(`${tight.gateway.baseUrl}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: chatBody(content),
        });
      expect((await request("first sponsored")).status).toBe(200);
      const feePayerBefore = chain.solana.getBalance(chain.feePayer.address);
      const usdcBefore = await chain.solana.getTokenBalance(wallet.address, chain.solana.usdcMint);
      const exhausted = await request("second sponsored");
      expect(exhausted.status).toBe(503);
      expect(await errorMessage(exhausted)).toContain("sponsored-fee daily budget is exhausted");
      expect(chain.solana.getBalance(chain.feePayer.address)).toBe(feePayerBefore);
      expect(await chain.solana.getTokenBalance(wallet.address, chain.solana.usdcMint)).toBe(usdcBefore);

      const body = chatBody("self-broadcast still works");
      const { response } = await fetchWithSelfBroadcast((headers) => post(tight, body, headers), {
        rpc: chain.solana.rpc,
        wallet,
        asset: "USDC",
        usdcMint: chain.solana.usdcMint,
      });
      expect(response.status).toBe(200);
    } finally {
      await tight.close();
    }
  });
});
