import type { Address, Signature } from "@solana/kit";
import type { Network, PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { budgetDay } from "../../../chains/daily-fee-budget";
import { decodeBase64Transaction } from "../../../chains/solana/decode-transaction";
import { type BroadcastResult, waitForConfirmation } from "../../../chains/solana/transaction-broadcast";
import { computeTransactionFee } from "../../../chains/solana/transaction-fee";
import { transactionUnless } from "../../../db/rollback";
import { GatewayError } from "../../../errors/gateway-error";
import { findClaim, insertPendingClaim, type PaymentClaim } from "../../core/payment-claims";
import type { ChainPaymentProof, RailPayment, VerifiedPayment } from "../../core/payment-rail";
import { consumeQuote } from "../../core/quote-store";
import type { Settlement } from "../../core/settlement";
import { walletAccountId } from "../../core/wallet-ledger";
import { x402BadRequest, x402Messages } from "../../core/x402-errors";
import { abandonPendingClaim, creditLandedClaim, failPendingClaim } from "./landed-claim";
import { assetOf, mintOf } from "./mechanisms";
import { standardRequirements } from "./solana-accepts";
import { solanaMessages, sponsoredBudgetExhausted } from "./solana-errors";
import type { SolanaRailDeps, SolanaServices } from "./solana-services";
import { reserveSponsoredFee } from "./sponsored-fee-budget";

type StandardProof = Extract<ChainPaymentProof, { type: "standard" }>;

/** One co-signed payment under way: its quote and option, our services, and its predicted signature. */
interface Paying {
  deps: SolanaRailDeps;
  services: SolanaServices;
  payment: RailPayment;
  mint: Address;
  signature: Signature;
}

/**
 * Verifies a standard x402 `exact` payment: our checks and @x402/svm's verification run
 * before the fee payer signs. Settling writes the claim (with the co-signed bytes and the fee
 * reserved from the daily budget) before broadcast; then the transaction is sent, confirmed
 * and its balance delta into pay_to read back from the chain like any other payment.
 *
 * The fee payer's signature is deterministic, so a re-sent payload maps to the same
 * signature and converges on the claim already written: it is polled, never sent again.
 */
export async function verifyExact(
  deps: SolanaRailDeps,
  payment: RailPayment,
  proof: StandardProof,
): Promise<VerifiedPayment> {
  const { quote, option } = payment;
  const services = await deps.services();
  const cosigner = services.cosigner;
  if (!cosigner) {
    throw x402BadRequest("this gateway does not co-sign x402 payments; pay with a self-broadcast transfer");
  }
  if (option.details.fee_payer !== cosigner.feePayer) {
    throw x402BadRequest("x402 quote names a fee payer this gateway no longer uses; request a new quote");
  }
  const transaction = typeof proof.payload.transaction === "string" ? proof.payload.transaction.trim() : "";
  if (transaction === "") throw x402BadRequest("x402 payment payload must carry payload.transaction");
  const mint = mintOf(option, services.usdcMint);
  const requirements = toRequirements(standardRequirements(quote, option, mint, services.quoteTtlSeconds));

  const cosigned = await cosigner.cosignAndPredictSignature(transaction, requirements);
  if (cosigned.type === "rejected") {
    throw x402BadRequest(
      `x402 payment transaction refused before co-signing (${cosigned.reason}): ${cosigned.message}`,
      { reason: cosigned.reason },
    );
  }
  const paying: Paying = { deps, services, payment, mint, signature: cosigned.signature };
  const existing = await findClaim(deps.database, option.network, cosigned.signature);
  // Already claimed (and so already sent, or about to be): wait on it, whatever the quote's state now.
  if (existing) return { type: "landed", settle: () => converge(paying, existing) };

  return {
    type: "authorized",
    async settle() {
      const verified = await cosigner.verify(
        { x402Version: 2, accepted: requirements, payload: { transaction } } satisfies PaymentPayload,
        requirements,
      );
      if (!verified.isValid) {
        const detail = verified.invalidMessage ? `: ${verified.invalidMessage}` : "";
        throw x402BadRequest(`x402 payment rejected (${verified.invalidReason ?? "invalid"})${detail}`, {
          reason: verified.invalidReason,
        });
      }
      return claimAndBroadcast(paying, cosigned);
    },
  };
}

/** Writes the claim (with the fee reserved) before anything is broadcast, then sends and concludes. */
async function claimAndBroadcast(
  paying: Paying,
  cosigned: { signature: Signature; signedTransaction: string; payer: string },
): Promise<Settlement> {
  const { deps, services } = paying;
  const { quote, option } = paying.payment;
  const cosigner = services.cosigner;
  if (!cosigner) throw x402BadRequest("this gateway does not co-sign x402 payments");
  const fee = computeTransactionFee(decodeBase64Transaction(cosigned.signedTransaction).message);
  const day = budgetDay(services.now());
  const claimed = await transactionUnless(
    deps.database,
    async (transaction, rollback: (reason: "claim_taken" | "quote_taken" | "budget_exhausted") => never) => {
      const inserted = await insertPendingClaim(transaction, {
        network: option.network,
        signature: cosigned.signature,
        quoteId: quote.id,
        scheme: "standard",
        asset: assetOf(option),
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
    const raced = await findClaim(deps.database, option.network, cosigned.signature);
    if (!raced) throw x402BadRequest(solanaMessages.signatureUsed);
    return converge(paying, raced);
  }
  const result = await cosigner.broadcastAndConfirm(cosigned.signedTransaction);
  return conclude(paying, claimed.value, result);
}

/** The same transaction again: wait on the claim already written instead of sending anything. */
async function converge(paying: Paying, claim: PaymentClaim): Promise<Settlement> {
  if (claim.quoteId !== paying.payment.quote.id) throw x402BadRequest(solanaMessages.signatureUsed);
  if (claim.status === "settled") {
    throw x402BadRequest(
      `x402 payment already settled: transaction ${claim.signature} was broadcast once and settled quote ${claim.quoteId}`,
    );
  }
  if (claim.status === "failed")
    throw x402BadRequest("x402 payment transaction failed on-chain; nothing was transferred");
  const signed = claim.signedTransaction;
  if (signed === null) throw x402BadRequest(solanaMessages.signatureUsed);
  const result = await waitForConfirmation(paying.services.rpc, paying.signature, {
    blockhash: decodeBase64Transaction(signed).message.lifetimeToken,
  });
  return conclude(paying, claim, result);
}

/** Acts on the chain's answer for a claimed transaction; only `confirmed` goes on to serve. */
async function conclude(paying: Paying, claim: PaymentClaim, result: BroadcastResult): Promise<Settlement> {
  const { deps, services } = paying;
  const { quote, option } = paying.payment;
  const database = deps.database;
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
    option,
    claim,
    walletAccountId: walletId,
    holdTtlSeconds: deps.holdTtlSeconds,
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
    asset: assetOf(option),
    network: option.network,
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
