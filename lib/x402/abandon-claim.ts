import { budgetDay } from "../chains/daily-fee-budget";
import type { Database } from "../db/client";
import { refundSponsoredFee } from "./fee-budget";
import { deletePendingClaim, markClaimFailed, type PaymentClaim } from "./payment-claims";
import { releaseQuote } from "./quote-store";

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
