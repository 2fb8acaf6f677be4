import { address, isAddress } from "@solana/kit";
import { verifyBalanceProof } from "../../../chains/solana/balance-proof";
import {
  type VerifyNativePaymentInput,
  verifyNativePayment,
} from "../../../chains/solana/verify-native-payment";
import { GatewayError } from "../../../errors/gateway-error";
import { creditAndHold } from "../../core/credit-and-hold";
import { findClaim } from "../../core/payment-claims";
import type { ChainPaymentProof, RailPayment, VerifiedPayment } from "../../core/payment-rail";
import type { Settlement } from "../../core/settlement";
import { walletAccountId } from "../../core/wallet-ledger";
import { x402BadRequest, x402Messages } from "../../core/x402-errors";
import { assetOf, creditOf, rateMetadata } from "./mechanisms";
import { solanaMessages } from "./solana-errors";
import type { SolanaRailDeps } from "./solana-services";

/**
 * How long after its quote expires a self-broadcast payment may still be presented. The
 * transfer itself must have landed inside the quote's window (plus the verifier's 60 s
 * grace): a client that paid in time and whose retry was slow is not turned away.
 */
const NATIVE_PRESENT_GRACE_SECONDS = 300;

type NativeProof = Extract<ChainPaymentProof, { type: "native" }>;

/**
 * Verifies a transfer the payer broadcast itself: read the confirmed transaction and check
 * the balance delta into pay_to. The value has already moved, so it is `landed`: settling
 * claims, credits and holds in one database transaction, whatever the quote's state.
 */
export async function verifyNative(
  deps: SolanaRailDeps,
  { quote, option }: RailPayment,
  proof: NativeProof,
): Promise<VerifiedPayment> {
  const services = await deps.services();
  if (!isAddress(proof.payerWallet)) throw x402BadRequest("payer_wallet is not a valid Solana address");

  // Cheap refusals before any RPC: a claimed signature, an expired quote.
  if (await findClaim(deps.database, option.network, proof.signature)) {
    throw x402BadRequest(solanaMessages.signatureUsed);
  }
  const presentDeadline = quote.expiresAt.getTime() + NATIVE_PRESENT_GRACE_SECONDS * 1000;
  if (services.now().getTime() > presentDeadline) throw x402BadRequest(x402Messages.quoteExpired);
  if (proof.proof === undefined && deps.requirePayerProof) {
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
    payTo: address(option.payTo),
    payerWallet: proof.payerWallet,
    minAmount: option.amount,
    notBefore: quote.createdAt,
    notAfter: quote.expiresAt,
  };
  const input: VerifyNativePaymentInput =
    assetOf(option) === "USDC"
      ? { ...common, asset: "USDC", usdcMint: services.usdcMint }
      : { ...common, asset: "SOL" };
  let verified: Awaited<ReturnType<typeof verifyNativePayment>>;
  try {
    verified = await verifyNativePayment(services.rpc, input);
  } catch (error) {
    throw new GatewayError("upstream_error", "Solana transaction lookup failed; retry the same request", {
      cause: error,
    });
  }
  if (verified.type === "not_found") throw x402BadRequest(solanaMessages.notFound);
  if (verified.type === "rejected") {
    throw x402BadRequest(`x402 payment rejected (${verified.reason}): ${verified.message}`, {
      reason: verified.reason,
    });
  }

  const received = verified.received;
  return { type: "landed", settle: () => settleNative(deps, { quote, option, proof }, received) };
}

async function settleNative(
  deps: SolanaRailDeps,
  { quote, option, proof }: RailPayment & { proof: NativeProof },
  received: bigint,
): Promise<Settlement> {
  const { database } = deps;
  const asset = assetOf(option);
  const credited = creditOf(option, received);
  const walletId = await walletAccountId(database, proof.payerWallet);
  const outcome = await creditAndHold(database, {
    quote,
    network: option.network,
    claim: {
      type: "insert",
      input: {
        network: option.network,
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
    holdTtlSeconds: deps.holdTtlSeconds,
    metadata: {
      quote_id: quote.id,
      scheme: "native",
      network: option.network,
      asset,
      signature: proof.signature,
      payer_wallet: proof.payerWallet,
      received: received.toString(),
      ...rateMetadata(option),
    },
  });
  if (outcome.type === "replayed") throw x402BadRequest(solanaMessages.signatureUsed);
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
    network: option.network,
    payerWallet: proof.payerWallet,
    transaction: proof.signature,
    receivedAmount: received,
    creditedMicrounits: credited,
    walletAccountId: walletId,
    holdId: outcome.holdId,
    availableAfter: outcome.availableAfter,
  };
}
