import { address } from "@solana/kit";
import { verifyNativePayment } from "../chains/solana/verify-native-payment";
import type { Database } from "../db/client";
import { type CreditOutcome, creditAndHold } from "./credit-and-hold";
import { markClaimFailed, type PaymentClaim } from "./payment-claims";
import { lamportsToMicrounits } from "./quote-amounts";
import type { StoredQuote } from "./quote-store";
import type { SolanaTerms } from "./solana-terms";
import type { StandardRail } from "./standard-rail";
import type { X402Services } from "./x402-services";

/** A co-signed transaction may land a little after its quote expired: it was signed before. */
const LANDING_GRACE_SECONDS = 180;

export type LandedClaimResult =
  | { type: "credited"; outcome: CreditOutcome; received: bigint; credited: bigint; walletAccountId: bigint }
  /** Landed but paid nothing to pay_to: the claim is closed as failed. */
  | { type: "unverified"; message: string };

/**
 * Credits a co-signed transaction the chain confirmed. The amount is read back from the
 * chain (the balance delta into pay_to's token account), never taken from the instruction.
 */
export async function creditLandedClaim(input: {
  database: Database;
  services: X402Services;
  quote: StoredQuote;
  terms: SolanaTerms;
  claim: PaymentClaim;
  rail: StandardRail;
  walletAccountId: bigint;
  holdTtlSeconds: number;
  hold: boolean;
}): Promise<LandedClaimResult> {
  const { quote, claim, rail, terms } = input;
  const onChain = await verifyNativePayment(input.services.rpc, {
    asset: "USDC",
    // The token-balance path of the verifier serves any mint: USDC or wrapped SOL here.
    usdcMint: rail.mint,
    signature: claim.signature,
    payTo: address(terms.payTo),
    payerWallet: claim.payerWallet,
    minAmount: rail.amount,
    notBefore: quote.createdAt,
    notAfter: quote.expiresAt,
    graceSeconds: LANDING_GRACE_SECONDS,
  });
  if (onChain.type !== "verified") {
    await markClaimFailed(input.database, claim.id);
    return { type: "unverified", message: onChain.message };
  }
  const credited =
    rail.asset === "USDC"
      ? onChain.received
      : lamportsToMicrounits(onChain.received, terms.microUsdPerSol ?? 0n);
  const outcome = await creditAndHold(input.database, {
    quote,
    network: terms.network,
    claim: { type: "finalize", id: claim.id },
    signature: claim.signature,
    asset: rail.asset,
    walletAccountId: input.walletAccountId,
    receivedAmount: onChain.received,
    creditedMicrounits: credited,
    holdTtlSeconds: input.holdTtlSeconds,
    hold: input.hold,
    metadata: {
      quote_id: quote.id,
      scheme: "standard",
      network: terms.network,
      asset: rail.asset,
      mint: rail.mint,
      signature: claim.signature,
      payer_wallet: claim.payerWallet,
      received: onChain.received.toString(),
      ...(rail.asset === "SOL" ? { micro_usd_per_sol: String(terms.microUsdPerSol) } : {}),
    },
  });
  return {
    type: "credited",
    outcome,
    received: onChain.received,
    credited,
    walletAccountId: input.walletAccountId,
  };
}
