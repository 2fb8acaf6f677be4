import { address, isAddress } from "@solana/kit";
import { verifyBalanceProof } from "../chains/solana/balance-proof";
import { type VerifyNativePaymentInput, verifyNativePayment } from "../chains/solana/verify-native-payment";
import { GatewayError } from "../errors/gateway-error";
import { creditAndHold } from "./credit-and-hold";
import { findClaim, type PaymentAsset } from "./payment-claims";
import type { PaymentProof } from "./payment-header";
import { lamportsToMicrounits } from "./quote-amounts";
import type { SettleContext, Settlement } from "./settlement";
import { walletAccountId } from "./wallet-ledger";
import { x402BadRequest, x402Messages } from "./x402-errors";

/**
 * How long after its quote expires a self-broadcast payment may still be presented. The
 * transfer itself must have landed inside the quote's window (plus the verifier's 60 s
 * grace): a client that paid in time and whose retry was slow is not turned away.
 */
export const NATIVE_PRESENT_GRACE_SECONDS = 300;

type NativeProof = Extract<PaymentProof, { type: "native" }>;

/**
 * Settles a transfer the payer broadcast itself: read the confirmed transaction, check the
 * balance delta into pay_to, then claim, credit and hold in one database transaction.
 */
export async function settleNative(context: SettleContext, proof: NativeProof): Promise<Settlement> {
  const { services, quote } = context;
  const database = context.app.database.db;
  if (proof.network !== "" && proof.network !== quote.network) {
    throw x402BadRequest(`x402 quote is payable on ${quote.network}, not ${proof.network}`);
  }
  const asset = railOf(proof.asset);
  const minAmount = asset === "USDC" ? quote.capMicrounits : quote.capLamports;
  if (minAmount === null || (asset === "SOL" && quote.microUsdPerSol === null)) {
    throw x402BadRequest("this x402 quote offers no SOL rail; pay in USDC or request a new quote");
  }
  if (!isAddress(proof.payerWallet)) throw x402BadRequest("payer_wallet is not a valid Solana address");

  // Cheap refusals before any RPC: a claimed signature, an expired quote.
  if (await findClaim(database, quote.network, proof.signature))
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
    payTo: address(quote.payTo),
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

  const credited =
    asset === "USDC"
      ? verified.received
      : lamportsToMicrounits(verified.received, quote.microUsdPerSol ?? 0n);
  const walletId = await walletAccountId(database, proof.payerWallet);
  const outcome = await creditAndHold(database, {
    quote,
    claim: {
      type: "insert",
      input: {
        network: quote.network,
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
    receivedAmount: verified.received,
    creditedMicrounits: credited,
    holdTtlSeconds: context.app.env.HOLD_TTL_SECONDS,
    metadata: {
      quote_id: quote.id,
      scheme: "native",
      network: quote.network,
      asset,
      signature: proof.signature,
      payer_wallet: proof.payerWallet,
      received: verified.received.toString(),
      ...(asset === "SOL" ? { micro_usd_per_sol: String(quote.microUsdPerSol) } : {}),
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
    network: quote.network,
    payerWallet: proof.payerWallet,
    transaction: proof.signature,
    receivedAmount: verified.received,
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
