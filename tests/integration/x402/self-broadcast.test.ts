import type { KeyPairSigner, Signature } from "@solana/kit";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyLedger } from "../../../lib/ledger/verify-ledger";
import type { PaymentReceipt } from "../../../lib/x402/core/receipt";
import { streamReceipt, verifiedReceipt } from "../../helpers/receipts";
import { chatBody, startX402TestGateway, type X402TestGateway } from "../../helpers/x402-gateway";
import {
  balanceProof,
  decodeQuote,
  encodePaymentSignature,
  fetchWithSelfBroadcast,
  nativeEntry,
  payNative,
  type Quote,
} from "../../helpers/x402-self-broadcast-client";

let x402: X402TestGateway;

beforeAll(async () => {
  x402 = await startX402TestGateway();
});
afterAll(async () => {
  if (x402) expect(await verifyLedger(x402.gateway.app.database.db)).toEqual([]);
  await x402?.close();
});

const network = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1";

function receiptOf(response: Response): PaymentReceipt {
  const header = response.headers.get("payment-response");
  if (!header) throw new Error(`no PAYMENT-RESPONSE (status ${response.status})`);
  return JSON.parse(Buffer.from(header, "base64").toString("utf8")) as PaymentReceipt;
}

async function errorMessage(response: Response): Promise<string> {
  const body = (await response.json()) as { error: { message: string } };
  return body.error.message;
}

function selfBroadcast(body: string, wallet: KeyPairSigner, asset: "USDC" | "SOL") {
  return fetchWithSelfBroadcast((headers) => x402.post("openai", body, headers), {
    rpc: x402.chain.solana.rpc,
    wallet,
    asset,
    usdcMint: x402.chain.solana.usdcMint,
  });
}

async function quoteFor(body: string): Promise<Quote> {
  const response = await x402.post("openai", body);
  expect(response.status).toBe(402);
  return decodeQuote(response);
}

function proofHeader(quote: Quote, wallet: string, signature: string, asset: "USDC" | "SOL" = "USDC") {
  return {
    "PAYMENT-SIGNATURE": encodePaymentSignature({
      quote_id: quote.quote_id,
      network,
      asset,
      payer_wallet: wallet,
      signature,
    }),
  };
}

async function pay(
  wallet: KeyPairSigner,
  quote: Quote,
  asset: "USDC" | "SOL",
  amount?: bigint,
): Promise<Signature> {
  const entry = nativeEntry(quote, asset);
  return payNative({
    rpc: x402.chain.solana.rpc,
    wallet,
    asset,
    payTo: entry.pay_to,
    amount: amount ?? BigInt(entry.amount_microunits),
    usdcMint: x402.chain.solana.usdcMint,
  });
}

/** Runs `attack` and checks that it reached no upstream and credited no wallet. */
async function expectNothingMoved(wallets: string[], attack: () => Promise<void>): Promise<void> {
  const upstreamBefore = x402.upstreamRequests();
  const before = await Promise.all(wallets.map((wallet) => x402.walletBalance(wallet)));
  await attack();
  expect(x402.upstreamRequests()).toBe(upstreamBefore);
  expect(await Promise.all(wallets.map((wallet) => x402.walletBalance(wallet)))).toEqual(before);
}

describe("self-broadcast payments", () => {
  it("USDC: pays the cap, serves, charges usage and credits the surplus to the wallet", async () => {
    const wallet = await x402.chain.fundedWallet({ usdc: 5_000_000n });
    const payToBefore = await x402.chain.solana.getTokenBalance(
      x402.chain.payTo.address,
      x402.chain.solana.usdcMint,
    );
    const { response, quote, signature } = await selfBroadcast(
      chatBody("usdc [fake:tokens=4]"),
      wallet,
      "USDC",
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-expose-headers")).toContain("PAYMENT-RESPONSE");
    const completion = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    expect(completion.choices[0]?.message.content).toBeTruthy();

    const cap = BigInt(nativeEntry(quote, "USDC").amount_microunits);
    const receipt = receiptOf(response);
    expect(receipt).toMatchObject({
      x402Version: 2,
      success: true,
      quote_id: quote.quote_id,
      network,
      asset: "USDC",
      payer: wallet.address,
      transaction: signature,
      cap_microunits: Number(cap),
      credited_microunits: Number(cap),
      charge_final: true,
    });
    expect(receipt.charged_microunits).toBeGreaterThan(0);
    expect(receipt.charged_microunits).toBeLessThanOrEqual(Number(cap));
    // The signed usage receipt names the paying wallet and the charge, in the header and the PAYMENT-RESPONSE.
    const usage = await verifiedReceipt(x402.gateway.baseUrl, response.headers.get("x-pod-receipt") ?? "", {
      requestId: response.headers.get("x-request-id") ?? "",
    });
    expect(usage.payer).toEqual({ kind: "x402", wallet: wallet.address, network });
    expect(usage.charge).toBe(String(receipt.charged_microunits));
    expect(receipt.usage_receipt).toBe(response.headers.get("x-pod-receipt"));
    expect(receipt.surplus_credited_microunits).toBe(Number(cap) - receipt.charged_microunits);
    expect(await x402.walletBalance(wallet.address)).toEqual({
      balance: BigInt(receipt.surplus_credited_microunits),
      held: 0n,
      available: BigInt(receipt.surplus_credited_microunits),
    });
    expect(receipt.wallet_balance_microunits).toBe(receipt.surplus_credited_microunits);
    expect(
      (await x402.chain.solana.getTokenBalance(x402.chain.payTo.address, x402.chain.solana.usdcMint)) -
        payToBefore,
    ).toBe(cap);
  });

  it("SOL: pays lamports at the quote's rate; the credit is their value at that rate", async () => {
    const wallet = await x402.chain.fundedWallet();
    const { response, quote } = await selfBroadcast(chatBody("sol [fake:tokens=2]"), wallet, "SOL");
    expect(response.status).toBe(200);
    const lamports = BigInt(nativeEntry(quote, "SOL").amount_microunits);
    const cap = BigInt(nativeEntry(quote, "USDC").amount_microunits);
    const credited = (lamports * 150_000_000n) / 1_000_000_000n;
    expect(credited).toBeGreaterThanOrEqual(cap);
    const receipt = receiptOf(response);
    expect(receipt).toMatchObject({
      asset: "SOL",
      amount: lamports.toString(),
      credited_microunits: Number(credited),
    });
    expect((await x402.walletBalance(wallet.address)).balance).toBe(
      credited - BigInt(receipt.charged_microunits),
    );
  });

  it("serves the Anthropic dialect and streams a paid request, with the final receipt at the end", async () => {
    const wallet = await x402.chain.fundedWallet({ usdc: 5_000_000n });
    const body = JSON.stringify({
      model: "claude-haiku-4-5",
      max_tokens: 40,
      stream: true,
      messages: [{ role: "user", content: "stream me [fake:tokens=5]" }],
    });
    const { response } = await fetchWithSelfBroadcast(
      (headers) => x402.post("anthropic", body, { "anthropic-version": "2023-06-01", ...headers }),
      { rpc: x402.chain.solana.rpc, wallet, asset: "USDC", usdcMint: x402.chain.solana.usdcMint },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const early = receiptOf(response);
    expect(early.charge_final).toBe(false);
    expect(early.charged_microunits).toBe(early.cap_microunits);
    const text = await response.text();
    expect(text).toContain("message_stop");
    const comment = /^: PAYMENT-RESPONSE (\S+)$/m.exec(text);
    expect(comment).not.toBeNull();
    const final = JSON.parse(Buffer.from(comment?.[1] ?? "", "base64").toString("utf8")) as PaymentReceipt;
    expect(final.charge_final).toBe(true);
    expect(final.charged_microunits).toBeLessThan(final.cap_microunits);
    const { jws } = streamReceipt(text.slice(0, text.indexOf(": PAYMENT-RESPONSE")));
    expect(final.usage_receipt).toBe(jws);
    const usage = await verifiedReceipt(x402.gateway.baseUrl, jws);
    expect(usage).toMatchObject({
      payer: { kind: "x402", wallet: wallet.address },
      charge: String(final.charged_microunits),
    });
    expect((await x402.walletBalance(wallet.address)).available).toBe(
      BigInt(final.cap_microunits - final.charged_microunits),
    );
  });

  it("a second request spends the surplus with the balance scheme", async () => {
    const wallet = await x402.chain.fundedWallet({ usdc: 5_000_000n });
    // A large max_tokens and a short answer leave most of the cap as surplus.
    const first = await selfBroadcast(
      chatBody("first [fake:tokens=2]", { max_tokens: 4000 }),
      wallet,
      "USDC",
    );
    expect(first.response.status).toBe(200);
    const surplus = BigInt(receiptOf(first.response).surplus_credited_microunits);

    const body = chatBody("second [fake:tokens=3]");
    const quote = await quoteFor(body);
    const proof = await balanceProof(wallet, quote.quote_id);
    const chainBefore = await x402.chain.solana.getTokenBalance(wallet.address, x402.chain.solana.usdcMint);
    const response = await x402.post("openai", body, {
      "PAYMENT-SIGNATURE": encodePaymentSignature({
        quote_id: quote.quote_id,
        network,
        asset: "USDC",
        payer_wallet: wallet.address,
        scheme: "balance",
        proof,
      }),
    });
    expect(response.status).toBe(200);
    const receipt = receiptOf(response);
    expect(receipt).toMatchObject({
      scheme: "balance",
      transaction: "",
      credited_microunits: 0,
      payer: wallet.address,
    });
    expect(receipt.wallet_balance_microunits).toBe(Number(surplus) - receipt.charged_microunits);
    expect((await x402.walletBalance(wallet.address)).balance).toBe(
      surplus - BigInt(receipt.charged_microunits),
    );
    // No chain transaction: the wallet's USDC did not move.
    expect(await x402.chain.solana.getTokenBalance(wallet.address, x402.chain.solana.usdcMint)).toBe(
      chainBefore,
    );

    // The quote is spent: the same proof cannot buy the request twice.
    const again = await x402.post("openai", body, {
      "PAYMENT-SIGNATURE": encodePaymentSignature({
        quote_id: quote.quote_id,
        payer_wallet: wallet.address,
        scheme: "balance",
        proof,
      }),
    });
    expect(again.status).toBe(400);
    expect(await errorMessage(again)).toContain("already been settled");
  });

  it("balance spends: the reference service's checks and messages, and nothing served on refusal", async () => {
    const wallet = await x402.chain.fundedWallet({ usdc: 5_000_000n });
    const stranger = await x402.chain.fundedWallet();
    const body = chatBody("balance checks");
    const quote = await quoteFor(body);
    const spend = (payload: Record<string, unknown>) =>
      x402.post("openai", body, {
        "PAYMENT-SIGNATURE": encodePaymentSignature({
          quote_id: quote.quote_id,
          scheme: "balance",
          ...payload,
        }),
      });
    await expectNothingMoved([wallet.address], async () => {
      expect(await errorMessage(await spend({ proof: "x" }))).toBe(
        "bad request: balance spend requires payer_wallet",
      );
      expect(await errorMessage(await spend({ payer_wallet: wallet.address }))).toBe(
        "bad request: balance spend requires payload.proof (signed quote id)",
      );
      expect(await errorMessage(await spend({ payer_wallet: wallet.address, proof: "abc" }))).toBe(
        "bad request: proof is not a 64-byte ed25519 signature",
      );
      const foreignProof = await balanceProof(stranger, quote.quote_id);
      expect(await errorMessage(await spend({ payer_wallet: wallet.address, proof: foreignProof }))).toBe(
        "bad request: proof signature does not verify for payer_wallet",
      );
      const proof = await balanceProof(wallet, quote.quote_id);
      const below = await spend({ payer_wallet: wallet.address, proof });
      expect(below.status).toBe(400);
      expect(await errorMessage(below)).toContain("balance is below the quote cap");
    });
  });

  it("a paid request that cannot be served leaves its whole payment credited", async () => {
    const wallet = await x402.chain.fundedWallet({ usdc: 5_000_000n });
    const { response, quote } = await selfBroadcast(chatBody("[fake:error=500] doomed"), wallet, "USDC");
    expect(response.status).toBe(502);
    expect(response.headers.get("x-should-retry")).toBe("false");
    const cap = BigInt(nativeEntry(quote, "USDC").amount_microunits);
    const body = (await response.json()) as { error: { message: string; details: Record<string, unknown> } };
    expect(body.error.message).toContain("credited to the wallet balance");
    expect(body.error.details).toMatchObject({
      payer_wallet: wallet.address,
      credited_microunits: Number(cap),
    });
    expect(receiptOf(response)).toMatchObject({
      charged_microunits: 0,
      surplus_credited_microunits: Number(cap),
    });
    expect(await x402.walletBalance(wallet.address)).toEqual({ balance: cap, held: 0n, available: cap });
  });
});

describe("self-broadcast attacks: rejected, nothing served, nothing credited", () => {
  it("replays a settled signature, sequentially and for another quote", async () => {
    const wallet = await x402.chain.fundedWallet({ usdc: 5_000_000n });
    const body = chatBody("replay me");
    const { response, quote, signature } = await selfBroadcast(body, wallet, "USDC");
    expect(response.status).toBe(200);
    await expectNothingMoved([wallet.address], async () => {
      const replay = await x402.post("openai", body, proofHeader(quote, wallet.address, signature));
      expect(replay.status).toBe(400);
      expect(await errorMessage(replay)).toContain("already been used");
      const other = await quoteFor(body);
      const reused = await x402.post("openai", body, proofHeader(other, wallet.address, signature));
      expect(reused.status).toBe(400);
      expect(await errorMessage(reused)).toContain("already been used");
    });
  });

  it("replays one signature concurrently: exactly one request is served", async () => {
    const wallet = await x402.chain.fundedWallet({ usdc: 5_000_000n });
    const body = chatBody("concurrent replay");
    const quote = await quoteFor(body);
    const signature = await pay(wallet, quote, "USDC");
    const upstreamBefore = x402.upstreamRequests();
    const responses = await Promise.all(
      Array.from({ length: 6 }, () =>
        x402.post("openai", body, proofHeader(quote, wallet.address, signature)),
      ),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
    expect(x402.upstreamRequests()).toBe(upstreamBefore + 1);
    const cap = BigInt(nativeEntry(quote, "USDC").amount_microunits);
    const served = responses.find((response) => response.status === 200);
    const charged = served ? BigInt(receiptOf(served).charged_microunits) : 0n;
    expect((await x402.walletBalance(wallet.address)).balance).toBe(cap - charged);
  });

  it("underpays", async () => {
    const wallet = await x402.chain.fundedWallet({ usdc: 5_000_000n });
    const body = chatBody("underpay");
    const quote = await quoteFor(body);
    const cap = BigInt(nativeEntry(quote, "USDC").amount_microunits);
    const signature = await pay(wallet, quote, "USDC", cap - 1n);
    await expectNothingMoved([wallet.address], async () => {
      const response = await x402.post("openai", body, proofHeader(quote, wallet.address, signature));
      expect(response.status).toBe(400);
      expect(await errorMessage(response)).toContain("underpaid");
    });
    const solQuote = await quoteFor(body);
    const lamports = BigInt(nativeEntry(solQuote, "SOL").amount_microunits);
    const solSignature = await pay(wallet, solQuote, "SOL", lamports - 1n);
    await expectNothingMoved([wallet.address], async () => {
      const response = await x402.post(
        "openai",
        body,
        proofHeader(solQuote, wallet.address, solSignature, "SOL"),
      );
      expect(await errorMessage(response)).toContain("underpaid");
    });
  });

  it("presents a transaction that landed and failed", async () => {
    const wallet = await x402.chain.fundedWallet({ usdc: 10n });
    const body = chatBody("failed transfer");
    const quote = await quoteFor(body);
    const entry = nativeEntry(quote, "USDC");
    const signature = await payNative({
      rpc: x402.chain.solana.rpc,
      wallet,
      asset: "USDC",
      payTo: entry.pay_to,
      amount: BigInt(entry.amount_microunits),
      usdcMint: x402.chain.solana.usdcMint,
      skipPreflight: true,
    });
    await expectNothingMoved([wallet.address], async () => {
      const response = await x402.post("openai", body, proofHeader(quote, wallet.address, signature));
      expect(response.status).toBe(400);
      expect(await errorMessage(response)).toContain("transaction_failed");
    });
  });

  it("presents a transfer older than the quote", async () => {
    const wallet = await x402.chain.fundedWallet({ usdc: 5_000_000n });
    const body = chatBody("old transfer");
    // Paid an hour ago (a deposit, a bond, anything that went to pay_to before).
    x402.chain.solana.setBlockTime(new Date(Date.now() - 3_600_000));
    let signature: Signature;
    try {
      signature = await payNative({
        rpc: x402.chain.solana.rpc,
        wallet,
        asset: "USDC",
        payTo: x402.chain.payTo.address,
        amount: 1_000_000n,
        usdcMint: x402.chain.solana.usdcMint,
      });
    } finally {
      x402.chain.solana.useWallClock();
    }
    const quote = await quoteFor(body);
    await expectNothingMoved([wallet.address], async () => {
      const response = await x402.post("openai", body, proofHeader(quote, wallet.address, signature));
      expect(await errorMessage(response)).toContain("transfer_too_old");
    });
  });

  it("claims someone else's transfer with another wallet", async () => {
    const victim = await x402.chain.fundedWallet({ usdc: 5_000_000n });
    const attacker = await x402.chain.fundedWallet();
    const body = chatBody("harvested");
    const victimQuote = await quoteFor(body);
    const signature = await pay(victim, victimQuote, "USDC");
    const attackerQuote = await quoteFor(body);
    await expectNothingMoved([victim.address, attacker.address], async () => {
      const response = await x402.post(
        "openai",
        body,
        proofHeader(attackerQuote, attacker.address, signature),
      );
      expect(response.status).toBe(400);
      expect(await errorMessage(response)).toContain("payer_not_signer");
    });
    // The victim's own settlement still works.
    const own = await x402.post("openai", body, proofHeader(victimQuote, victim.address, signature));
    expect(own.status).toBe(200);
  });

  it("changes the body after the quote", async () => {
    const wallet = await x402.chain.fundedWallet({ usdc: 5_000_000n });
    const body = chatBody("original question", { max_tokens: 10 });
    const quote = await quoteFor(body);
    const signature = await pay(wallet, quote, "USDC");
    await expectNothingMoved([wallet.address], async () => {
      const changed = chatBody("original question", { max_tokens: 4000 });
      const response = await x402.post("openai", changed, proofHeader(quote, wallet.address, signature));
      expect(response.status).toBe(400);
      expect(await errorMessage(response)).toBe("bad request: x402 quote does not match this request");
      const reformatted = `${body} `;
      const spaced = await x402.post("openai", reformatted, proofHeader(quote, wallet.address, signature));
      expect(await errorMessage(spaced)).toBe("bad request: x402 quote does not match this request");
    });
    expect((await x402.post("openai", body, proofHeader(quote, wallet.address, signature))).status).toBe(200);
  });

  it("settles against an expired quote", async () => {
    const wallet = await x402.chain.fundedWallet({ usdc: 5_000_000n });
    const body = chatBody("expired");
    const database = x402.gateway.app.database.db;
    const age = async (quote: Quote, minutesAgo: number) => {
      await database.execute(
        sql`UPDATE x402_quotes SET created_at = now() - make_interval(mins => ${minutesAgo + 5}),
              expires_at = now() - make_interval(mins => ${minutesAgo}) WHERE id = ${quote.quote_id}`,
      );
    };
    // Long expired: refused before the chain is even read.
    const stale = await quoteFor(body);
    await age(stale, 10);
    const staleSignature = await pay(wallet, stale, "USDC");
    // Recently expired, paid after expiry: the transfer is outside the quote's window.
    const late = await quoteFor(body);
    await age(late, 2);
    const lateSignature = await pay(wallet, late, "USDC");
    await expectNothingMoved([wallet.address], async () => {
      const refused = await x402.post("openai", body, proofHeader(stale, wallet.address, staleSignature));
      expect(await errorMessage(refused)).toBe("bad request: x402 quote has expired; request a new quote");
      const tooLate = await x402.post("openai", body, proofHeader(late, wallet.address, lateSignature));
      expect(await errorMessage(tooLate)).toContain("transfer_too_late");
    });
  });

  it("presents a transaction the chain has not confirmed yet; the same header works once it is", async () => {
    const wallet = await x402.chain.fundedWallet({ usdc: 5_000_000n });
    const body = chatBody("not yet");
    const quote = await quoteFor(body);
    const entry = nativeEntry(quote, "USDC");
    x402.chain.solana.holdConfirmations();
    let signature: Signature;
    try {
      signature = await payNative({
        rpc: x402.chain.solana.rpc,
        wallet,
        asset: "USDC",
        payTo: entry.pay_to,
        amount: BigInt(entry.amount_microunits),
        usdcMint: x402.chain.solana.usdcMint,
        confirm: false,
      });
      await expectNothingMoved([wallet.address], async () => {
        const pending = await x402.post("openai", body, proofHeader(quote, wallet.address, signature));
        expect(pending.status).toBe(400);
        expect(await errorMessage(pending)).toContain("not found or not yet confirmed");
      });
    } finally {
      x402.chain.solana.releaseConfirmations();
    }
    const settled = await x402.post("openai", body, proofHeader(quote, wallet.address, signature));
    expect(settled.status).toBe(200);
  });
});
