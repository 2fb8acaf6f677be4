import type { Network, PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { and, eq, sql } from "drizzle-orm";
import { type Address, getAddress, type Hash } from "viem";
import { type AuthorizationFault, authorizationFault } from "../../../chains/evm/authorization-terms";
import { runAuthorizedTransfer, type Submission } from "../../../chains/evm/authorized-transfer";
import type { Eip712Token } from "../../../chains/evm/constants";
import {
  authorizationKey,
  parseTransferAuthorization,
  type TransferAuthorization,
} from "../../../chains/evm/eip3009";
import { x402Payments } from "../../../db/schema";
import { GatewayError } from "../../../errors/gateway-error";
import { log } from "../../../log";
import { creditAndHold } from "../../core/credit-and-hold";
import { findClaim, markClaimFailed, type PaymentClaim } from "../../core/payment-claims";
import type { ChainPaymentProof, RailPayment, VerifiedPayment } from "../../core/payment-rail";
import { consumeQuote, type QuoteOption, releaseQuote, type StoredQuote } from "../../core/quote-store";
import type { Settlement } from "../../core/settlement";
import { walletAccountId } from "../../core/wallet-ledger";
import { x402BadRequest, x402Messages } from "../../core/x402-errors";
import type { EvmRailDeps, EvmServices } from "./evm-services";

/** The EVM rail's one mechanism: a standard x402 `exact` payment, an EIP-3009 authorization. */
export const EVM_EXACT = "eip155-exact";

type StandardProof = Extract<ChainPaymentProof, { type: "standard" }>;

/** One Base payment being checked and settled: the rail's deps and services, the quote and its option. */
interface EvmPayment {
  deps: EvmRailDeps;
  quote: StoredQuote;
  option: QuoteOption;
}

function evmBudgetExhausted(): GatewayError {
  return new GatewayError(
    "service_unavailable",
    "x402 Base gas daily budget is exhausted: pay with one of the Solana entries of the quote instead",
    { headers: { "x-should-retry": "false" }, details: { reason: "gas_budget_exhausted" } },
  );
}

function replayed(): GatewayError {
  return x402BadRequest("x402 authorization has already been used to settle a quote", { reason: "replayed" });
}

/** The requirements a payment is checked against: rebuilt from our option, never the client's echo. */
function requirementsOf(payment: EvmPayment, token: Eip712Token, amount: bigint): PaymentRequirements {
  return {
    scheme: "exact",
    network: payment.option.network as Network,
    asset: token.address,
    amount: amount.toString(),
    payTo: payment.option.payTo,
    maxTimeoutSeconds: payment.deps.services.maxTimeoutSeconds,
    extra: { name: token.name, version: token.version },
  };
}

/**
 * Checks an EIP-3009 authorization for a quote's Base option without moving anything: the
 * terms every submitted authorization meets, then a never-used key. Settling runs the
 * facilitator's verification (it simulates the transfer on-chain), then the transfer.
 */
export async function verifyEvm(
  deps: EvmRailDeps,
  { quote, option }: RailPayment,
  proof: StandardProof,
): Promise<VerifiedPayment> {
  const payment: EvmPayment = { deps, quote, option };
  const { services } = deps;
  const token = await services.tokenDomain();
  const authorization = parseTransferAuthorization(proof.payload);
  if (!authorization) {
    throw x402BadRequest("x402 payment payload must carry an EIP-3009 authorization and its signature");
  }
  const fault = await authorizationFault(services.publicClient, authorization, {
    chainId: services.chainId,
    token,
    payTo: getAddress(option.payTo),
    minValue: option.amount,
    latestValidBefore: BigInt(Math.floor(quote.expiresAt.getTime() / 1000) + services.maxTimeoutSeconds),
  });
  if (fault) throw faultRefusal(fault, option, authorization);
  const key = authorizationKey(token.address, authorization);
  if (await findClaim(deps.database, option.network, key)) throw replayed();

  const requirements = requirementsOf(payment, token, authorization.value);
  const payload: PaymentPayload = {
    x402Version: 2,
    accepted: requirements,
    payload: { authorization: authorizationJson(authorization), signature: authorization.signature },
  };
  return {
    type: "authorized",
    async settle() {
      const verified = await services.facilitator.verify(payload, requirements);
      if (!verified.isValid) {
        const detail = verified.invalidMessage ? `: ${verified.invalidMessage}` : "";
        throw x402BadRequest(`x402 payment rejected (${verified.invalidReason ?? "invalid"})${detail}`, {
          reason: verified.invalidReason,
        });
      }
      return claimAndSettle(payment, { token, authorization, key, payload, requirements });
    },
  };
}

function faultRefusal(
  fault: AuthorizationFault,
  option: QuoteOption,
  authorization: TransferAuthorization,
): GatewayError {
  switch (fault) {
    case "recipient":
      return x402BadRequest(
        `x402 authorization pays ${authorization.to}, not this quote's payTo ${option.payTo}`,
        { reason: "recipient_mismatch" },
      );
    case "below_minimum":
      return x402BadRequest(
        `x402 authorization of ${authorization.value} is below the quoted ${option.amount} microunits`,
        { reason: "value_below_quote" },
      );
    case "not_yet_valid":
      return x402BadRequest("x402 authorization is not valid yet (validAfter is in the future)", {
        reason: "valid_after",
      });
    case "expired":
      return x402BadRequest("x402 authorization has expired (validBefore has passed)", {
        reason: "valid_before",
      });
    case "outlives_terms":
      return x402BadRequest("x402 authorization outlives its quote by more than maxTimeoutSeconds", {
        reason: "valid_before",
      });
    case "nonce": // x402 terms commit to no nonce: any 32 bytes the payer chose
    case "signature":
      return x402BadRequest(
        `x402 authorization signature does not recover to ${authorization.from} for USDC on ${option.network}`,
        { reason: "invalid_signature" },
      );
  }
}

interface Paying {
  token: Eip712Token;
  authorization: TransferAuthorization;
  key: string;
  payload: PaymentPayload;
  requirements: PaymentRequirements;
}

function authorizationJson(authorization: TransferAuthorization): Record<string, string> {
  return {
    from: authorization.from,
    to: authorization.to,
    value: authorization.value.toString(),
    validAfter: authorization.validAfter.toString(),
    validBefore: authorization.validBefore.toString(),
    nonce: authorization.nonce,
  };
}

/** The facilitator submits: its refusal without a transaction is known to have sent nothing. */
function facilitatorSubmitter(services: EvmServices, paying: Paying): () => Promise<Submission> {
  return async () => {
    const settled = await services.facilitator.settle(paying.payload, paying.requirements);
    // A transaction it names, even with a failure, went out: its receipt decides.
    if (settled.transaction) return { type: "submitted", hash: settled.transaction as Hash };
    return {
      type: "refused",
      reason: settled.errorReason ?? "settle_failed",
      message: settled.errorMessage ?? "the facilitator refused it",
    };
  };
}

/**
 * The one EVM transfer (`runAuthorizedTransfer`) with an x402 claim: the authorization key's
 * unique row and the quote's consumption commit with the gas reservation, before the
 * facilitator submits; the receipt read back from the chain decides, then the credit.
 */
async function claimAndSettle(payment: EvmPayment, paying: Paying): Promise<Settlement> {
  const { option, quote } = payment;
  const { database, services } = payment.deps;
  const payer = getAddress(paying.authorization.from);
  const releaseClaim = async (claim: PaymentClaim) => {
    await markClaimFailed(database, claim.id);
    await releaseQuote(database, quote.id, paying.key);
  };
  const outcome = await runAuthorizedTransfer({
    database,
    network: option.network,
    publicClient: services.publicClient,
    // An external facilitator pays its own gas.
    gasDailyBudgetWei: services.settler ? services.gasDailyBudgetWei : undefined,
    claims: {
      async write(transaction, rollback: (reason: "claim_taken" | "quote_taken") => never) {
        const [inserted] = await transaction
          .insert(x402Payments)
          .values({
            network: option.network,
            signature: paying.key,
            quoteId: quote.id,
            scheme: "standard",
            asset: "USDC",
            payerWallet: payer,
            status: "pending",
            signedTransaction: JSON.stringify(paying.payload.payload),
            sponsoredFeeLamports: null,
          })
          .onConflictDoNothing({ target: [x402Payments.network, x402Payments.signature] })
          .returning();
        if (!inserted) return rollback("claim_taken");
        if (!(await consumeQuote(transaction, quote.id, paying.key))) rollback("quote_taken");
        return inserted;
      },
      async submitted(claim, hash) {
        await database
          .update(x402Payments)
          .set({ transactionHash: hash, updatedAt: sql`now()` })
          .where(and(eq(x402Payments.id, claim.id), eq(x402Payments.status, "pending")));
      },
      abandon: releaseClaim,
      fail: releaseClaim,
    },
    submit: facilitatorSubmitter(services, paying),
    expected: {
      token: paying.token.address,
      from: payer,
      to: getAddress(option.payTo),
      nonce: paying.authorization.nonce,
      minValue: option.amount,
    },
    receiptTimeoutMs: services.receiptTimeoutMs,
  });
  switch (outcome.type) {
    case "not_claimed":
      if (outcome.reason === "claim_taken") throw replayed();
      if (outcome.reason === "quote_taken") throw x402BadRequest(x402Messages.quoteSettled);
      throw evmBudgetExhausted();
    case "refused":
      throw x402BadRequest(
        `x402 payment was not settled (${outcome.reason}): ${outcome.message}; nothing was transferred`,
        { reason: outcome.reason },
      );
    case "unknown":
      log.warn("x402: EVM settlement failed", { error: outcome.error, quote_id: quote.id });
      // Whether the transfer went out is unknown: the claim stays pending for reconciliation.
      throw x402BadRequest(
        "x402 settlement pending: the transfer's outcome is not known yet; re-send the same PAYMENT-SIGNATURE later",
      );
    case "pending":
      throw x402BadRequest(
        `x402 settlement pending: transaction ${outcome.hash} is not yet mined; re-send the same PAYMENT-SIGNATURE later`,
      );
    case "rejected":
      throw x402BadRequest(
        `x402 payment transaction ${outcome.hash} did not pay this quote: ${outcome.message}`,
        { reason: "transfer_not_confirmed", transaction: outcome.hash },
      );
    case "transferred":
      return creditSettled(payment, outcome.claim, {
        hash: outcome.hash,
        payer,
        value: outcome.value,
        key: paying.key,
      });
    default: {
      const unreachable: never = outcome;
      return unreachable;
    }
  }
}

async function creditSettled(
  payment: EvmPayment,
  claim: PaymentClaim,
  paid: { hash: Hash; payer: Address; value: bigint; key: string },
): Promise<Settlement> {
  const { option, quote } = payment;
  const database = payment.deps.database;
  const walletId = await walletAccountId(database, paid.payer);
  const outcome = await creditAndHold(database, {
    quote,
    network: option.network,
    claim: { type: "finalize", id: claim.id },
    signature: paid.key,
    asset: "USDC",
    walletAccountId: walletId,
    receivedAmount: paid.value,
    creditedMicrounits: paid.value,
    holdTtlSeconds: payment.deps.holdTtlSeconds,
    metadata: {
      quote_id: quote.id,
      scheme: "standard",
      network: option.network,
      asset: "USDC",
      authorization: paid.key,
      transaction: paid.hash,
      payer_wallet: paid.payer,
      received: paid.value.toString(),
    },
  });
  if (outcome.type !== "held") {
    throw x402BadRequest(`x402 payment already settled: transaction ${paid.hash} settled quote ${quote.id}`);
  }
  return {
    scheme: "standard",
    quote,
    asset: "USDC",
    network: option.network,
    payerWallet: paid.payer,
    transaction: paid.hash,
    receivedAmount: paid.value,
    creditedMicrounits: paid.value,
    walletAccountId: walletId,
    holdId: outcome.holdId,
    availableAfter: outcome.availableAfter,
  };
}
