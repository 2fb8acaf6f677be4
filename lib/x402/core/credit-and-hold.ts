import type { Database } from "../../db/client";
import { transactionUnless } from "../../db/rollback";
import { placeHold } from "../../ledger/holds";
import { type ClaimInput, insertSettledClaim, markClaimSettled } from "./payment-claims";
import { consumeQuote, type StoredQuote } from "./quote-store";
import { creditWallet, paymentIdempotencyKey, x402ExternalRef } from "./wallet-ledger";

export type CreditOutcome =
  /** Credited and the quote's cap held on the wallet: serve the request. */
  | { type: "held"; holdId: string; availableAfter: bigint }
  /** This signature already settled a payment (here or in another process): nothing moved. */
  | { type: "replayed" }
  /** Credited, but the quote had already been settled by another payment: do not serve. */
  | { type: "quote_taken" }
  /** Credited without a hold (`hold: false`): a payment recovered after its request was gone. */
  | { type: "credited" };

export interface CreditAndHoldInput {
  quote: StoredQuote;
  /** The network the payment was made on: with the signature, the payment's unique key. */
  network: string;
  /** Native payments insert their claim here; standard ones finalize the claim written before broadcast. */
  claim: { type: "insert"; input: ClaimInput } | { type: "finalize"; id: bigint };
  signature: string;
  asset: string;
  walletAccountId: bigint;
  receivedAmount: bigint;
  creditedMicrounits: bigint;
  holdTtlSeconds: number;
  metadata: Record<string, unknown>;
  /** Hold the cap for a request about to be served (default); false only credits. */
  hold?: boolean;
}

/**
 * Claim, consume the quote, credit the wallet and hold the cap: one database transaction,
 * so a payment is either fully settled and reserved for its request, or nothing happened.
 * Every step is guarded by a unique index or a conditional update, never by process memory.
 */
export async function creditAndHold(database: Database, input: CreditAndHoldInput): Promise<CreditOutcome> {
  const settled = await transactionUnless(
    database,
    async (transaction, rollback: (reason: "replayed") => never): Promise<CreditOutcome> => {
      const amounts = { receivedAmount: input.receivedAmount, creditedMicrounits: input.creditedMicrounits };
      const claimed =
        input.claim.type === "insert"
          ? await insertSettledClaim(transaction, { ...input.claim.input, ...amounts })
          : await markClaimSettled(transaction, input.claim.id, amounts);
      if (!claimed) rollback("replayed");
      // Standard claims consumed the quote when they were written, before broadcast.
      const quoteFree =
        input.claim.type === "finalize" || (await consumeQuote(transaction, input.quote.id, input.signature));
      const credited = await creditWallet(transaction, {
        walletAccountId: input.walletAccountId,
        externalRef: x402ExternalRef(input.network, input.asset),
        creditedMicrounits: input.creditedMicrounits,
        idempotencyKey: paymentIdempotencyKey(input.network, input.signature),
        metadata: input.metadata,
      });
      if (!credited) rollback("replayed");
      if (!quoteFree) return { type: "quote_taken" };
      if (input.hold === false) return { type: "credited" };
      const hold = await placeHold(
        transaction,
        input.walletAccountId,
        input.quote.capMicrounits,
        input.holdTtlSeconds,
      );
      // The credit just added covers the cap, so this cannot fail short of a broken invariant.
      if (hold.type !== "held") throw new Error("x402: the wallet could not hold a cap it was just credited");
      return hold;
    },
  );
  return settled.type === "committed" ? settled.value : { type: "replayed" };
}
