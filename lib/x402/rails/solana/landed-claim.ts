import { address } from "@solana/kit";
import { budgetDay } from "../../../chains/daily-fee-budget";
import { verifyNativePayment } from "../../../chains/solana/verify-native-payment";
import type { Database } from "../../../db/client";
import { type CreditOutcome, creditAndHold } from "../../core/credit-and-hold";
import { deletePendingClaim, markClaimFailed, type PaymentClaim } from "../../core/payment-claims";
import { type QuoteOption, releaseQuote, type StoredQuote } from "../../core/quote-store";
import { assetOf, creditOf, mintOf, rateMetadata } from "./mechanisms";
import type { SolanaServices } from "./solana-services";
import { refundSponsoredFee } from "./sponsored-fee-budget";

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
  services: SolanaServices;
  quote: StoredQuote;
  option: QuoteOption;
  claim: PaymentClaim;
  walletAccountId: bigint;
  holdTtlSeconds: number;
  hold: boolean;
}): Promise<LandedClaimResult> {
  const { quote, claim, option } = input;
  const mint = mintOf(option, input.services.usdcMint);
  const onChain = await verifyNativePayment(input.services.rpc, {
    asset: "USDC",
    // The token-balance path of the verifier serves any mint: USDC or wrapped SOL here.
    usdcMint: mint,
    signature: claim.signature,
    payTo: address(option.payTo),
    payerWallet: claim.payerWallet,
    minAmount: option.amount,
    notBefore: quote.createdAt,
    notAfter: quote.expiresAt,
    graceSeconds: LANDING_GRACE_SECONDS,
  });
  if (onChain.type !== "verified") {
    await markClaimFailed(input.database, claim.id);
    return { type: "unverified", message: onChain.message };
  }
  const asset = assetOf(option);
  const credited = creditOf(option, onChain.received);
  const outcome = await creditAndHold(input.database, {
    quote,
    network: option.network,
    claim: { type: "finalize", id: claim.id },
    signature: claim.signature,
    asset,
    walletAccountId: input.walletAccountId,
    receivedAmount: onChain.received,
    creditedMicrounits: credited,
    holdTtlSeconds: input.holdTtlSeconds,
    hold: input.hold,
    metadata: {
      quote_id: quote.id,
      scheme: "standard",
      network: option.network,
      asset,
      mint,
      signature: claim.signature,
      payer_wallet: claim.payerWallet,
      received: onChain.received.toString(),
      ...rateMetadata(option),
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

/**
 * Closes a pending standard claim whose transaction can never land (refused by the node, or
 * its blockhash expired unseen): the claim goes, its quote is free again, and the fee that
 * was reserved for it returns to the day's budget, since no fee was paid.
 */
export async function abandonPendingClaim(database: Database, claim: PaymentClaim): Promise<void> {
  if (!(await deletePendingClaim(database, claim.id))) return;
  await releaseQuote(database, claim.quoteId, claim.signature);
  await refundSponsoredFee(database, {
    day: budgetDay(claim.createdAt),
    lamports: claim.sponsoredFeeLamports ?? 0n,
  });
}

/** A transaction that landed and failed: final, its fee was spent, and its quote may be paid again. */
export async function failPendingClaim(database: Database, claim: PaymentClaim): Promise<void> {
  await markClaimFailed(database, claim.id);
  await releaseQuote(database, claim.quoteId, claim.signature);
}
