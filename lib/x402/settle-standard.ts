import type { Signature } from "@solana/kit";
import type { Network, PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { budgetDay } from "../chains/daily-fee-budget";
import { decodeBase64Transaction } from "../chains/solana/decode-transaction";
import { type BroadcastResult, waitForConfirmation } from "../chains/solana/transaction-broadcast";
import { computeTransactionFee } from "../chains/solana/transaction-fee";
import { transactionUnless } from "../db/rollback";
import { GatewayError } from "../errors/gateway-error";
import { abandonPendingClaim, failPendingClaim } from "./abandon-claim";
import { creditLandedClaim } from "./credit-landed-claim";
import { reserveSponsoredFee } from "./fee-budget";
import { findClaim, insertPendingClaim, type PaymentClaim } from "./payment-claims";
import { standardRequirements } from "./payment-required";
import { unservableReason } from "./price-request";
import { consumeQuote } from "./quote-store";
import type { ChainPaymentProof, VerifiedPayment } from "./rails/payment-rail";
import type { SolanaSettleContext } from "./settle-native";
import type { Settlement } from "./settlement";
import { type StandardRail, standardRailOf } from "./standard-rail";
import { walletAccountId } from "./wallet-ledger";
import { sponsoredBudgetExhausted, x402BadRequest, x402Messages } from "./x402-errors";

type StandardProof = Extract<ChainPaymentProof, { type: "standard" }>;

/**
 * Settles a standard x402 `exact` payment: our checks and @x402/svm's verification run
 * before the fee payer signs; the claim (with the co-signed bytes and the fee reserved from
 * the daily budget) is written before broadcast; then the transaction is sent, confirmed and
 * its balance delta into pay_to read back from the chain like any other payment.
 *
 * The fee payer's signature is deterministic, so a re-sent payload maps to the same
 * signature and converges on the claim already written: it is polled, never sent again.
 */
export async function verifyStandard(
  context: SolanaSettleContext,
  proof: StandardProof,
): Promise<VerifiedPayment> {
  const { services, quote, priced, terms } = context;
  const cosigner = services.cosigner;
  if (!cosigner || terms.feePayer === null) {
    throw x402BadRequest("this gateway does not co-sign x402 payments; pay with a self-broadcast transfer");
  }
  if (terms.feePayer !== cosigner.feePayer) {
    throw x402BadRequest("x402 quote names a fee payer this gateway no longer uses; request a new quote");
  }
  if (proof.network !== terms.network) {
    throw x402BadRequest(`x402 quote is payable on ${terms.network}, not ${proof.network}`);
  }
  const transaction = typeof proof.payload.transaction === "string" ? proof.payload.transaction.trim() : "";
  if (transaction === "") throw x402BadRequest("x402 payment payload must carry payload.transaction");
  const rail = standardRailOf(proof.asset, terms, services.usdcMint);
  if (!rail) throw x402BadRequest(`x402 asset ${proof.asset} is not offered by this quote`);
  // Nothing has moved yet: refuse before co-signing when no source can serve within the cap.
  const unservable = unservableReason(priced, quote.capMicrounits);
  if (unservable) throw unservable;
  const requirements = toRequirements(standardRequirements(quote, rail, services.quoteTtlSeconds));

  const cosigned = await cosigner.cosignAndPredictSignature(transaction, requirements);
  if (cosigned.type === "rejected") {
    throw x402BadRequest(
      `x402 payment transaction refused before co-signing (${cosigned.reason}): ${cosigned.message}`,
      {
        reason: cosigned.reason,
      },
    );
  }
  const paying: Paying = { rail, signature: cosigned.signature };
  const existing = await findClaim(context.app.database.db, terms.network, cosigned.signature);
  if (existing) return { settle: () => converge(context, existing, paying) };

  if (services.now() > quote.expiresAt) throw x402BadRequest(x402Messages.quoteExpired);
  if (quote.consumedAt !== null) throw x402BadRequest(x402Messages.quoteSettled);
  const verified = await cosigner.verify(
    {
      x402Version: 2,
      accepted: requirements,
      payload: { transaction },
    } satisfies PaymentPayload,
    requirements,
  );
  if (!verified.isValid) {
    const detail = verified.invalidMessage ? `: ${verified.invalidMessage}` : "";
    throw x402BadRequest(`x402 payment rejected (${verified.invalidReason ?? "invalid"})${detail}`, {
      reason: verified.invalidReason,
    });
  }

  return { settle: () => claimAndBroadcast(context, cosigned, paying) };
}

/** Writes the claim (with the fee reserved) before anything is broadcast, then sends and concludes. */
async function claimAndBroadcast(
  context: SolanaSettleContext,
  cosigned: { signature: Signature; signedTransaction: string; payer: string },
  paying: Paying,
): Promise<Settlement> {
  const { services, quote, terms } = context;
  const cosigner = services.cosigner;
  if (!cosigner) throw x402BadRequest("this gateway does not co-sign x402 payments");
  const rail = paying.rail;
  const fee = computeTransactionFee(decodeBase64Transaction(cosigned.signedTransaction).message);
  const day = budgetDay(services.now());
  const claimed = await transactionUnless(
    context.app.database.db,
    async (transaction, rollback: (reason: "claim_taken" | "quote_taken" | "budget_exhausted") => never) => {
      const inserted = await insertPendingClaim(transaction, {
        network: terms.network,
        signature: cosigned.signature,
        quoteId: quote.id,
        scheme: "standard",
        asset: rail.asset,
        payerWallet: cosigned.payer,
        signedTransaction: cosigned.signedTransaction,
        sponsoredFeeLamports: fee,
      });
      if (!inserted) return rollback("claim_taken");
      if (!(await consumeQuote(transaction, quote.id, cosigned.signature))) rollback("quote_taken");
      const reserved = await reserveSponsoredFee(transaction, {
        day,
        lamports: fee,
        dailyBudgetLamports: services.sponsoredFeeDailyBudgetLamports,
      });
      if (!reserved) rollback("budget_exhausted");
      return inserted;
    },
  );
  if (claimed.type === "rolled_back") {
    if (claimed.reason === "quote_taken") throw x402BadRequest(x402Messages.quoteSettled);
    if (claimed.reason === "budget_exhausted") throw sponsoredBudgetExhausted();
    // Another request (here or in another process) claimed these exact bytes a moment ago.
    const raced = await findClaim(context.app.database.db, terms.network, cosigned.signature);
    if (!raced) throw x402BadRequest(x402Messages.signatureUsed);
    return converge(context, raced, paying);
  }
  const claim = claimed.value;
  const result = await cosigner.broadcastAndConfirm(cosigned.signedTransaction);
  return conclude(context, claim, result, paying);
}

interface Paying {
  rail: StandardRail;
  signature: Signature;
}

/** The same transaction again: wait on the claim already written instead of sending anything. */
async function converge(
  context: SolanaSettleContext,
  claim: PaymentClaim,
  paying: Paying,
): Promise<Settlement> {
  if (claim.quoteId !== context.quote.id) throw x402BadRequest(x402Messages.signatureUsed);
  if (claim.status === "settled") {
    throw x402BadRequest(
      `x402 payment already settled: transaction ${claim.signature} was broadcast once and settled quote ${claim.quoteId}`,
    );
  }
  if (claim.status === "failed")
    throw x402BadRequest("x402 payment transaction failed on-chain; nothing was transferred");
  const signed = claim.signedTransaction;
  if (signed === null) throw x402BadRequest(x402Messages.signatureUsed);
  const result = await waitForConfirmation(context.services.rpc, paying.signature, {
    blockhash: decodeBase64Transaction(signed).message.lifetimeToken,
  });
  return conclude(context, claim, result, paying);
}

/** Acts on the chain's answer for a claimed transaction; only `confirmed` goes on to serve. */
async function conclude(
  context: SolanaSettleContext,
  claim: PaymentClaim,
  result: BroadcastResult,
  paying: Paying,
): Promise<Settlement> {
  const { quote, services, terms } = context;
  const database = context.app.database.db;
  switch (result.type) {
    case "confirmed":
      break;
    case "failed":
      await failPendingClaim(database, claim);
      throw x402BadRequest(
        `x402 payment transaction failed on-chain; nothing was transferred: ${result.error}`,
      );
    case "rejected":
      await abandonPendingClaim(database, claim);
      throw x402BadRequest(`x402 payment transaction was not accepted by the network: ${result.message}`);
    case "expired":
      await abandonPendingClaim(database, claim);
      throw x402BadRequest("x402 payment transaction expired before it landed; build a new one");
    case "pending":
      throw x402BadRequest(
        `x402 settlement pending: transaction ${result.signature} is not yet confirmed; re-send the same PAYMENT-SIGNATURE to settle it`,
      );
    default: {
      const unreachable: never = result;
      return unreachable;
    }
  }

  const walletId = await walletAccountId(database, claim.payerWallet);
  const landed = await creditLandedClaim({
    database,
    services,
    quote,
    terms,
    claim,
    rail: paying.rail,
    walletAccountId: walletId,
    holdTtlSeconds: context.app.env.HOLD_TTL_SECONDS,
    hold: true,
  });
  if (landed.type === "unverified") {
    throw new GatewayError("internal_error", "x402 payment landed but could not be verified on-chain", {
      details: { transaction: paying.signature, reason: landed.message },
    });
  }
  if (landed.outcome.type !== "held") {
    throw x402BadRequest(
      `x402 payment already settled: transaction ${paying.signature} was broadcast once and settled quote ${quote.id}`,
    );
  }
  return {
    scheme: "standard",
    quote,
    asset: paying.rail.asset,
    network: terms.network,
    payerWallet: claim.payerWallet,
    transaction: paying.signature,
    receivedAmount: landed.received,
    creditedMicrounits: landed.credited,
    walletAccountId: walletId,
    holdId: landed.outcome.holdId,
    availableAfter: landed.outcome.availableAfter,
  };
}

function toRequirements(entry: ReturnType<typeof standardRequirements>): PaymentRequirements {
  return { ...entry, network: entry.network as Network };
}
