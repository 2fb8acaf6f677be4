import { signature as toSignature } from "@solana/kit";
import { and, eq, like, lt, sql } from "drizzle-orm";
import { decodeBase64Transaction } from "../../../chains/solana/decode-transaction";
import { waitForConfirmation } from "../../../chains/solana/transaction-broadcast";
import type { Database } from "../../../db/client";
import { x402Payments } from "../../../db/schema";
import { log } from "../../../log";
import { findQuote } from "../../core/quote-store";
import { walletAccountId } from "../../core/wallet-ledger";
import { abandonPendingClaim, creditLandedClaim, failPendingClaim } from "./landed-claim";
import { exactOptionFor } from "./mechanisms";
import type { SolanaServices } from "./solana-services";

/** A claim pending this long has no request waiting on it any more (requests wait 30 s). */
const STALE_CLAIM_SECONDS = 120;

/**
 * Finishes co-signed payments that a request left pending: a process that died between
 * broadcast and credit, or a confirmation slower than the request could wait. A transaction
 * that landed is credited to its payer's wallet (there is no request left to serve, so the
 * whole payment becomes credit); one that can never land releases its claim and quote.
 * Returns how many claims reached a final state.
 */
export async function reconcilePendingClaims(
  { database, holdTtlSeconds }: { database: Database; holdTtlSeconds: number },
  services: SolanaServices,
  options: { olderThanSeconds?: number; limit?: number } = {},
): Promise<number> {
  const olderThan = options.olderThanSeconds ?? STALE_CLAIM_SECONDS;
  const claims = await database
    .select()
    .from(x402Payments)
    .where(
      and(
        eq(x402Payments.status, "pending"),
        like(x402Payments.network, "solana:%"),
        lt(x402Payments.createdAt, sql`now() - make_interval(secs => ${olderThan})`),
      ),
    )
    .limit(options.limit ?? 20);
  let finished = 0;
  for (const claim of claims) {
    const quote = await findQuote(database, claim.quoteId);
    const option = quote ? exactOptionFor(quote, claim.asset, services.usdcMint) : undefined;
    if (!quote || !option || claim.signedTransaction === null) continue;
    const result = await waitForConfirmation(services.rpc, toSignature(claim.signature), {
      blockhash: decodeBase64Transaction(claim.signedTransaction).message.lifetimeToken,
      timeoutMs: 0,
    });
    if (result.type === "pending") continue;
    if (result.type === "expired") await abandonPendingClaim(database, claim);
    else if (result.type === "failed") await failPendingClaim(database, claim);
    else {
      await creditLandedClaim({
        database,
        services,
        quote,
        option,
        claim,
        walletAccountId: await walletAccountId(database, claim.payerWallet),
        holdTtlSeconds,
        hold: false,
      });
      log.info("x402: credited a co-signed payment left pending", {
        signature: claim.signature,
        payer_wallet: claim.payerWallet,
      });
    }
    finished += 1;
  }
  return finished;
}
