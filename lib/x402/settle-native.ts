import { address, isAddress } from "@solana/kit";
import { verifyBalanceProof } from "../chains/solana/balance-proof";
import { type VerifyNativePaymentInput, verifyNativePayment } from "../chains/solana/verify-native-payment";
import { GatewayError } from "../errors/gateway-error";
import { creditAndHold } from "./credit-and-hold";
import { findClaim, type PaymentAsset } from "./payment-claims";
import { lamportsToMicrounits } from "./quote-amounts";
import type { ChainPaymentProof, SettleContext, VerifiedPayment } from "./rails/payment-rail";
import type { Settlement } from "./settlement";
import type { SolanaTerms } from "./solana-terms";
import { walletAccountId } from "./wallet-ledger";
import { x402BadRequest, x402Messages } from "./x402-errors";
import type { X402Services } from "./x402-services";

/**
 * How long after its quote expires a self-broadcast payment may still be presented. The
 * transfer itself must have landed inside the quote's window (plus the verifier's 60 s
 * grace): a client that paid in time and whose retry was slow is not turned away.
 */
const NATIVE_PRESENT_GRACE_SECONDS = 300;

type NativeProof = Extract<ChainPaymentProof, { type: "native" }>;

export interface SolanaSettleContext extends SettleContext {
  services: X402Services;
  terms: SolanaTerms;
}

/**
 * Verifies a transfer the payer broadcast itself: read the confirmed transaction and check
 * the balance delta into pay_to. Settling then claims, credits and holds in one database
 * transaction.
 */
export async function verifyNative(
  context: SolanaSettleContext,
  proof: NativeProof,
): Promise<VerifiedPayment> {
  const { services, quote, terms } = context;
  const database = context.app.database.db;
  if (proof.network !== "" && proof.network !== terms.network) {
    throw x402BadRequest(`x402 quote is payable on ${terms.network}, not ${proof.network}`);
  }
  const asset = railOf(proof.asset);
  const minAmount = asset === "USDC" ? terms.usdcMicrounits : terms.capLamports;
  if (minAmount === null || (asset === "SOL" && terms.microUsdPerSol === null)) {
    throw x402BadRequest("this x402 quote offers no SOL rail; pay in USDC or request a new quote");
  }
  if (!isAddress(proof.payerWallet)) throw x402BadRequest("payer_wallet is not a valid Solana address");

  // Cheap refusals before any RPC: a claimed signature, an expired quote.
  if (await findClaim(database, terms.network, proof.signature))
    throw x402BadRequest(x402Messages.signatureUsed);
  const presentDeadline = quote.expiresAt.getTime() + NATIVE_PRESENT_GRACE_SECONDS * 1000;
  if (services.now().getTime() > presentDeadline) throw x402BadRequest(x402Messages.quoteExpired);
  if (proof.proof === undefined && context.app.env.X402_REQUIRE_PAYER_PROOF) {
    throw x402BadRequest(
      `self-broadcast payments require proof: sign "usepod-x402-spend:${quote.id}" with payer_wallet and send it as proof`,
    );
  }
  if (proof.proof !== undefined) {
    const checked = await verifyBalanceProof({
      quoteId: quote.id,
      payerWallet: proof.payerWallet,
      proof: proof.proof,
    });
    if (checked.type === "invalid") throw x402BadRequest(checked.message);
  }

  const common = {
    signature: proof.signature,
    payTo: address(terms.payTo),
    payerWallet: proof.payerWallet,
    minAmount,
    notBefore: quote.createdAt,
    notAfter: quote.expiresAt,
  };
  const input: VerifyNativePaymentInput =
    asset === "USDC" ? { ...common, asset, usdcMint: services.usdcMint } : { ...common, asset };
  let verified: Awaited<ReturnType<typeof verifyNativePayment>>;
  try {
    verified = await verifyNativePayment(services.rpc, input);
  } catch (error) {
    throw new GatewayError("upstream_error", "Solana transaction lookup failed; retry the same request", {
      cause: error,
    });
  }
  if (verified.type === "not_found") throw x402BadRequest(x402Messages.notFound);
  if (verified.type === "rejected") {
    throw x402BadRequest(`x402 payment rejected (${verified.reason}): ${verified.message}`, {
      reason: verified.reason,
    });
  }

  const received = verified.received;
  return { settle: () => settleVerifiedNative(context, proof, asset, received) };
}

async function settleVerifiedNative(
  context: SolanaSettleContext,
  proof: NativeProof,
  asset: PaymentAsset,
  received: bigint,
): Promise<Settlement> {
  const { quote, terms } = context;
  const database = context.app.database.db;
  const credited = asset === "USDC" ? received : lamportsToMicrounits(received, terms.microUsdPerSol ?? 0n);
  const walletId = await walletAccountId(database, proof.payerWallet);
  const outcome = await creditAndHold(database, {
    quote,
    network: terms.network,
    claim: {
      type: "insert",
      input: {
        network: terms.network,
        signature: proof.signature,
        quoteId: quote.id,
        scheme: "native",
        asset,
        payerWallet: proof.payerWallet,
      },
    },
    signature: proof.signature,
    asset,
    walletAccountId: walletId,
    receivedAmount: received,
    creditedMicrounits: credited,
    holdTtlSeconds: context.app.env.HOLD_TTL_SECONDS,
    metadata: {
      quote_id: quote.id,
      scheme: "native",
      network: terms.network,
      asset,
      signature: proof.signature,
      payer_wallet: proof.payerWallet,
      received: received.toString(),
      ...(asset === "SOL" ? { micro_usd_per_sol: String(terms.microUsdPerSol) } : {}),
    },
  });
  if (outcome.type === "replayed") throw x402BadRequest(x402Messages.signatureUsed);
  if (outcome.type !== "held") {
    throw new GatewayError(
      "conflict",
      `x402 quote was already settled by another payment; this payment (${credited} microunits) was credited to the wallet balance of ${proof.payerWallet}`,
      {
        headers: { "x-should-retry": "false" },
        details: { payer_wallet: proof.payerWallet, credited_microunits: Number(credited) },
      },
    );
  }
  return {
    scheme: "native",
    quote,
    asset,
    network: terms.network,
    payerWallet: proof.payerWallet,
    transaction: proof.signature,
    receivedAmount: received,
    creditedMicrounits: credited,
    walletAccountId: walletId,
    holdId: outcome.holdId,
    availableAfter: outcome.availableAfter,
  };
}

function railOf(asset: string): PaymentAsset {
  if (asset === "USDC" || asset === "SOL") return asset;
  throw x402BadRequest('asset must be "USDC" or "SOL"');
}
