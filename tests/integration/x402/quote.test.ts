import { createHash } from "node:crypto";
import { PaymentRequiredV2Schema } from "@x402/core/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { USDC_DEVNET_MINT, WSOL_MINT } from "../../../lib/chains/solana/constants";
import { findQuote } from "../../../lib/x402/core/quote-store";
import { chatBody, startX402TestGateway, type X402TestGateway } from "../../helpers/x402-gateway";
import { decodeQuote } from "../../helpers/x402-self-broadcast-client";

let x402: X402TestGateway;

beforeAll(async () => {
  x402 = await startX402TestGateway();
});
afterAll(async () => {
  await x402?.close();
});

const path = "/proxy/x402/v1/chat/completions";

describe("the x402 quote (402 PAYMENT-REQUIRED)", () => {
  it("answers an unpaid request with a v2 quote bound to the request bytes", async () => {
    const body = chatBody("hello [fake:tokens=3]");
    const response = await x402.post("openai", body);
    expect(response.status).toBe(402);
    expect(response.headers.get("access-control-expose-headers")).toContain("PAYMENT-REQUIRED");
    expect(response.headers.get("access-control-expose-headers")).toContain("PAYMENT-RESPONSE");
    const envelope = (await response.json()) as { error: { type: string; details: { quote_id: string } } };
    expect(envelope.error.type).toBe("payment_required");

    const quote = decodeQuote(response) as unknown as Record<string, unknown> & {
      accepts: Array<Record<string, unknown>>;
    };
    expect(quote.x402_version).toBe(2);
    expect(quote.x402Version).toBe(2);
    expect(quote.quote_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(envelope.error.details.quote_id).toBe(quote.quote_id);
    expect(quote.resource).toMatchObject({
      url: `${x402.gateway.baseUrl}${path}`,
      mimeType: "application/json",
    });
    // The official schema accepts the whole document, native entries included.
    expect(PaymentRequiredV2Schema.safeParse(quote).success).toBe(true);

    const [usdc, sol, standardUsdc, standardSol] = quote.accepts;
    const bodyHash = createHash("sha256").update(`POST\n${path}\n${body}`).digest("hex");
    const binding = {
      quote_id: quote.quote_id,
      method: "POST",
      path,
      body_hash: bodyHash,
      model: "gpt-4o-mini",
    };
    expect(usdc).toMatchObject({
      ...binding,
      asset: "USDC",
      scheme: "exact",
      network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
      pay_to: x402.chain.payTo.address,
      payTo: x402.chain.payTo.address,
      mode: "cap-with-surplus-credit",
      maxTimeoutSeconds: 300,
    });
    // Worst case: the prompt estimate (half the body's bytes + 16) at $0.15/M plus 50 output tokens at $0.60/M.
    const inputTokens = Math.ceil(Buffer.byteLength(body) / 2) + 16;
    const cap = Math.ceil((inputTokens * 150_000 + 50 * 600_000) / 1_000_000);
    expect(usdc?.amount_microunits).toBe(cap);
    expect(usdc?.amount).toBe(String(cap));
    const expiresIn = Date.parse(String(usdc?.expires_at)) - Date.now();
    expect(expiresIn).toBeGreaterThan(290_000);
    expect(expiresIn).toBeLessThanOrEqual(300_000);

    // SOL: the same dollars at the feed's $150/SOL, rounded up, in lamports.
    const lamports = (BigInt(cap) * 1_000_000_000n + 149_999_999n) / 150_000_000n;
    expect(sol).toMatchObject({
      ...binding,
      asset: "SOL",
      amount_microunits: Number(lamports),
      pay_to: x402.chain.payTo.address,
    });

    // Standard entries: mints, strings, floored at one cent, with our fee payer.
    expect(standardUsdc).toMatchObject({
      scheme: "exact",
      asset: USDC_DEVNET_MINT,
      payTo: x402.chain.payTo.address,
      amount: "10000",
      maxAmountRequired: "10000",
      extra: { feePayer: x402.chain.feePayer.address, quote_id: quote.quote_id },
    });
    expect(standardSol).toMatchObject({
      asset: WSOL_MINT,
      amount: String((10_000n * 1_000_000_000n) / 150_000_000n + 1n),
    });

    const stored = await findQuote(x402.gateway.app.database.db, String(quote.quote_id));
    expect(stored?.capMicrounits).toBe(BigInt(cap));
    expect(stored?.bodyHash).toBe(bodyHash);
  });

  it("quotes in the Anthropic dialect with Anthropic error envelopes", async () => {
    const body = JSON.stringify({
      model: "claude-haiku-4-5",
      max_tokens: 20,
      messages: [{ role: "user", content: "hi" }],
    });
    const response = await x402.post("anthropic", body, { "anthropic-version": "2023-06-01" });
    expect(response.status).toBe(402);
    expect(((await response.json()) as { type: string }).type).toBe("error");
    expect(decodeQuote(response).accepts[0]).toMatchObject({
      path: "/proxy/x402/v1/messages",
      model: "claude-haiku-4-5",
    });
    expect(response.headers.get("request-id")).toMatch(/^req_/);
  });

  it("requires max_tokens or max_completion_tokens, with the reference wording", async () => {
    const response = await x402.post(
      "openai",
      JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }),
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      "bad request: x402 requests must include max_tokens or max_completion_tokens",
    );
    const viaCompletionField = await x402.post(
      "openai",
      JSON.stringify({
        model: "gpt-4o-mini",
        max_completion_tokens: 10,
        messages: [{ role: "user", content: "hi" }],
      }),
    );
    expect(viaCompletionField.status).toBe(402);
  });

  it("rejects bad JSON and unknown models in the caller's dialect", async () => {
    const invalid = await x402.post("anthropic", "{not json");
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", code: "bad_request" },
    });
    const unknown = await x402.post("openai", chatBody("hi", { model: "no-such-model" }));
    // Like the reference: a model nobody serves is 503 no_provider, before any quote.
    expect(unknown.status).toBe(503);
    expect(await unknown.json()).toMatchObject({ error: { type: "no_provider" } });
  });

  it("prices the quote under the spend-control, routing-mode and pin headers", async () => {
    const body = chatBody("priced");
    const tooCheap = await x402.post("openai", body, { "X-Pod-Max-Price-Output": "1000" });
    expect(tooCheap.status).toBe(402);
    expect(tooCheap.headers.get("payment-required")).toBeNull();
    expect(((await tooCheap.json()) as { error: { type: string } }).error.type).toBe("no_provider_at_price");

    const pinned = await x402.post("openai", body, { "X-Pod-Providers": "openrouter" });
    expect(pinned.status).toBe(402);
    expect(decodeQuote(pinned).accepts[0]).toMatchObject({ model: "gpt-4o-mini" });

    const marketOnly = await x402.post("openai", body, { "X-Pod-Routing-Mode": "marketplace-only" });
    expect([402, 503]).toContain(marketOnly.status);
    expect(marketOnly.headers.get("payment-required")).toBeNull();

    const badMode = await x402.post("openai", body, { "X-Pod-Routing-Mode": "cheapest" });
    expect(badMode.status).toBe(400);
  });

  it("leaves the SOL entries out when no SOL price is available, and still quotes USDC", async () => {
    x402.chain.setSolPrice("not-a-price");
    try {
      // A fresh gateway: the price source caches the last good price for 30 s.
      const fresh = await startX402TestGateway({ chain: x402.chain });
      try {
        const response = await fresh.post("openai", chatBody("no sol price"));
        expect(response.status).toBe(402);
        const assets = decodeQuote(response).accepts.map((entry) => entry.asset);
        expect(assets).toEqual(["USDC", USDC_DEVNET_MINT]);
      } finally {
        await fresh.close();
      }
    } finally {
      x402.chain.setSolPrice("150.00");
    }
  });

  it("answers CORS preflights on both endpoints", async () => {
    for (const endpoint of ["/proxy/x402/v1/chat/completions", "/proxy/x402/v1/messages"]) {
      const response = await fetch(`${x402.gateway.baseUrl}${endpoint}`, { method: "OPTIONS" });
      expect(response.status).toBe(204);
      expect(response.headers.get("access-control-allow-headers")).toContain("payment-signature");
      expect(response.headers.get("access-control-expose-headers")).toContain("PAYMENT-RESPONSE");
    }
  });

  it("rejects a malformed PAYMENT-SIGNATURE and an unknown quote with the reference wording", async () => {
    const body = chatBody("bad header");
    const garbage = await x402.post("openai", body, { "PAYMENT-SIGNATURE": "%%%" });
    expect(((await garbage.json()) as { error: { message: string } }).error.message).toBe(
      "bad request: invalid payment header JSON",
    );
    const header = (payload: Record<string, unknown>) =>
      Buffer.from(JSON.stringify(payload)).toString("base64");
    const noSignature = await x402.post("openai", body, {
      "PAYMENT-SIGNATURE": header({ quote_id: crypto.randomUUID(), payer_wallet: x402.chain.payTo.address }),
    });
    expect(((await noSignature.json()) as { error: { message: string } }).error.message).toBe(
      "bad request: PAYMENT-SIGNATURE is missing the Solana transaction signature",
    );
    const unknown = await x402.post("openai", body, {
      "PAYMENT-SIGNATURE": header({
        quote_id: crypto.randomUUID(),
        network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
        asset: "USDC",
        payer_wallet: x402.chain.payTo.address,
        signature: "1".repeat(88),
      }),
    });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toBe(
      "bad request: unknown x402 quote",
    );
  });
});
