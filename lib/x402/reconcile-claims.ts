import { signature as toSignature } from "@solana/kit";
import { and, eq, like, lt, sql } from "drizzle-orm";
import { decodeBase64Transaction } from "../chains/solana/decode-transaction";
import { waitForConfirmation } from "../chains/solana/transaction-broadcast";
import type { Database } from "../db/client";
import { x402Payments } from "../db/schema";
import { log } from "../log";
import { abandonPendingClaim, failPendingClaim } from "./abandon-claim";
import { creditLandedClaim } from "./credit-landed-claim";
import { findQuote } from "./quote-store";
import { solanaTermsOf } from "./solana-terms";
import { standardRailOf } from "./standard-rail";
import { walletAccountId } from "./wallet-ledger";
import type { X402Services } from "./x402-services";

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
  services: X402Services,
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
    const terms = quote ? solanaTermsOf(quote) : undefined;
    const rail = terms ? standardRailOf(claim.asset, terms, services.usdcMint) : undefined;
    if (!quote || !terms || !rail || claim.signedTransaction === null) continue;
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
        terms,
        claim,
        rail,
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

/**
 * Deletes quotes that expired over a day ago and that no on-chain payment references (those
 * stay, as the record of what the payment bought). A deleted quote can no longer be settled,
 * which an expired one could not be either.
 */
export async function pruneExpiredQuotes(database: Database): Promise<void> {
  await database.execute(
    sql`DELETE FROM x402_quotes AS q
        WHERE q.expires_at < now() - interval '1 day'
          AND NOT EXISTS (SELECT 1 FROM x402_payments AS p WHERE p.quote_id = q.id)`,
  );
}
