import type { Network, PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { and, eq, sql } from "drizzle-orm";
import { type Address, getAddress, type Hash } from "viem";
import type { Eip712Token } from "../chains/evm/constants";
import {
  authorizationKey,
  parseTransferAuthorization,
  signedByPayer,
  type TransferAuthorization,
} from "../chains/evm/eip3009";
import { checkTransferReceipt } from "../chains/evm/transfer-receipt";
import { x402Payments } from "../db/schema";
import { GatewayError } from "../errors/gateway-error";
import { log } from "../log";
import { creditAndHold } from "./credit-and-hold";
import type { EvmServices } from "./evm-services";
import { budgetDay } from "./fee-budget";
import { adjustGas, reserveGas } from "./gas-budget";
import { findClaim, markClaimFailed, type PaymentClaim } from "./payment-claims";
import { unservableReason } from "./price-request";
import { consumeQuote, type QuoteOption, releaseQuote } from "./quote-store";
import type { ChainPaymentProof, SettleContext, VerifiedPayment } from "./rails/payment-rail";
import type { Settlement } from "./settlement";
import { walletAccountId } from "./wallet-ledger";
import { x402BadRequest, x402Messages } from "./x402-errors";

export const EVM_EXACT_RAIL = "eip155-exact";

/** The facilitator refuses an authorization that expires sooner than this (x402-protocol.md §4). */
const MIN_VALIDITY_SECONDS = 6n;
/** Worst-case gas of one transferWithAuthorization, reserved from the daily budget before submission. */
const GAS_RESERVATION = 150_000n;

type StandardProof = Extract<ChainPaymentProof, { type: "standard" }>;

export interface EvmSettleContext extends SettleContext {
  services: EvmServices;
  option: QuoteOption;
}

class ClaimTaken extends Error {}
class QuoteTaken extends Error {}
class BudgetExhausted extends Error {}

function evmBudgetExhausted(): GatewayError {
  return new GatewayError(
    "service_unavailable",
    "x402 Base gas daily budget is exhausted: pay with one of the Solana entries of the quote instead",
    { headers: { "x-should-retry": "false" }, details: { reason: "gas_budget_exhausted" } },
  );
}

/** The requirements a payment is checked against: rebuilt from our option, never the client's echo. */
function requirementsOf(context: EvmSettleContext, token: Eip712Token, amount: bigint): PaymentRequirements {
  return {
    scheme: "exact",
    network: context.option.network as Network,
    asset: token.address,
    amount: amount.toString(),
    payTo: context.option.payTo,
    maxTimeoutSeconds: context.services.maxTimeoutSeconds,
    extra: { name: token.name, version: token.version },
  };
}

/**
 * Checks an EIP-3009 authorization for a quote without moving anything: our own checks
 * (network, token, recipient, amount, validity window, signature, a never-used key), then
 * the facilitator's verification, which simulates the transfer on-chain.
 */
export async function verifyEvm(context: EvmSettleContext, proof: StandardProof): Promise<VerifiedPayment> {
  const { services, option, quote } = context;
  if (proof.network !== option.network) {
    throw x402BadRequest(`x402 quote is payable on ${option.network}, not ${proof.network}`);
  }
  const token = await services.tokenDomain();
  if (proof.asset.toLowerCase() !== token.address.toLowerCase()) {
    throw x402BadRequest(`x402 asset ${proof.asset} is not offered by this quote; pay USDC ${token.address}`);
  }
  const authorization = parseTransferAuthorization(proof.payload);
  if (!authorization) {
    throw x402BadRequest("x402 payment payload must carry an EIP-3009 authorization and its signature");
  }
  if (getAddress(authorization.to) !== getAddress(option.payTo)) {
    throw x402BadRequest(
      `x402 authorization pays ${authorization.to}, not this quote's payTo ${option.payTo}`,
      {
        reason: "recipient_mismatch",
      },
    );
  }
  if (authorization.value < option.amount) {
    throw x402BadRequest(
      `x402 authorization of ${authorization.value} is below the quoted ${option.amount} microunits`,
      { reason: "value_below_quote" },
    );
  }
  const now = BigInt(Math.floor(Date.now() / 1000));
  if (authorization.validAfter > now) {
    throw x402BadRequest("x402 authorization is not valid yet (validAfter is in the future)", {
      reason: "valid_after",
    });
  }
  if (authorization.validBefore < now + MIN_VALIDITY_SECONDS) {
    throw x402BadRequest("x402 authorization has expired (validBefore has passed)", {
      reason: "valid_before",
    });
  }
  const latest = BigInt(Math.floor(quote.expiresAt.getTime() / 1000) + services.maxTimeoutSeconds);
  if (authorization.validBefore > latest) {
    throw x402BadRequest("x402 authorization outlives its quote by more than maxTimeoutSeconds", {
      reason: "valid_before",
    });
  }
  const signed = await signedByPayer(services.publicClient, services.chainId, token, authorization);
  if (!signed) {
    throw x402BadRequest(
      `x402 authorization signature does not recover to ${authorization.from} for USDC on ${option.network}`,
      { reason: "invalid_signature" },
    );
  }
  const key = authorizationKey(token.address, authorization);
  if (await findClaim(context.app.database.db, option.network, key)) {
    throw x402BadRequest("x402 authorization has already been used to settle a quote", {
      reason: "replayed",
    });
  }
  if (new Date() > quote.expiresAt) throw x402BadRequest(x402Messages.quoteExpired);
  if (quote.consumedAt !== null) throw x402BadRequest(x402Messages.quoteSettled);
  const unservable = unservableReason(context.priced, quote.capMicrounits);
  if (unservable) throw unservable;

  const requirements = requirementsOf(context, token, authorization.value);
  const payload: PaymentPayload = {
    x402Version: 2,
    accepted: requirements,
    payload: { authorization: authorizationJson(authorization), signature: authorization.signature },
  };
  const verified = await services.facilitator.verify(payload, requirements);
  if (!verified.isValid) {
    const detail = verified.invalidMessage ? `: ${verified.invalidMessage}` : "";
    throw x402BadRequest(`x402 payment rejected (${verified.invalidReason ?? "invalid"})${detail}`, {
      reason: verified.invalidReason,
    });
  }
  return { settle: () => claimAndSettle(context, { token, authorization, key, payload, requirements }) };
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

/**
 * The claim (authorization key, unique across processes) and the quote's consumption are
 * written, and the gas reserved, in one database transaction before anything is submitted;
 * then the facilitator settles, and the receipt is read back from the chain.
 */
async function claimAndSettle(context: EvmSettleContext, paying: Paying): Promise<Settlement> {
  const { services, option, quote } = context;
  const database = context.app.database.db;
  const payer = getAddress(paying.authorization.from);
  const day = budgetDay(new Date());
  const reservedWei = services.settler ? GAS_RESERVATION * (await services.publicClient.getGasPrice()) : 0n;
  let claim: PaymentClaim;
  try {
    claim = await database.transaction(async (transaction) => {
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
      if (!inserted) throw new ClaimTaken();
      if (!(await consumeQuote(transaction, quote.id, paying.key))) throw new QuoteTaken();
      if (services.settler) {
        const reserved = await reserveGas(transaction, {
          network: option.network,
          day,
          wei: reservedWei,
          dailyBudgetWei: services.gasDailyBudgetWei,
        });
        if (!reserved) throw new BudgetExhausted();
      }
      return inserted;
    });
  } catch (error) {
    if (error instanceof ClaimTaken) {
      throw x402BadRequest("x402 authorization has already been used to settle a quote", {
        reason: "replayed",
      });
    }
    if (error instanceof QuoteTaken) throw x402BadRequest(x402Messages.quoteSettled);
    if (error instanceof BudgetExhausted) throw evmBudgetExhausted();
    throw error;
  }

  const failed = async (message: string, reason: string): Promise<never> => {
    await markClaimFailed(database, claim.id);
    await releaseQuote(database, quote.id, paying.key);
    if (services.settler)
      await adjustGas(database, { network: option.network, day, reservedWei, spentWei: 0n });
    throw x402BadRequest(`x402 payment was not settled (${reason}): ${message}; nothing was transferred`, {
      reason,
    });
  };

  let hash: Hash;
  try {
    const settled = await services.facilitator.settle(paying.payload, paying.requirements);
    if (!settled.success || !settled.transaction) {
      if (settled.transaction) hash = settled.transaction as Hash;
      else
        return await failed(
          settled.errorMessage ?? "the facilitator refused it",
          settled.errorReason ?? "settle_failed",
        );
    } else {
      hash = settled.transaction as Hash;
    }
  } catch (error) {
    log.warn("x402: EVM settlement failed", { error, quote_id: quote.id });
    // Whether the transfer went out is unknown: the claim stays pending for reconciliation.
    throw x402BadRequest(
      "x402 settlement pending: the transfer's outcome is not known yet; re-send the same PAYMENT-SIGNATURE later",
    );
  }

  await database
    .update(x402Payments)
    .set({ transactionHash: hash, updatedAt: sql`now()` })
    .where(and(eq(x402Payments.id, claim.id), eq(x402Payments.status, "pending")));
  const receipt = await services.publicClient
    .waitForTransactionReceipt({ hash, timeout: services.receiptTimeoutMs })
    .catch(() => undefined);
  if (!receipt) {
    throw x402BadRequest(
      `x402 settlement pending: transaction ${hash} is not yet mined; re-send the same PAYMENT-SIGNATURE later`,
    );
  }
  const spentWei = receipt.gasUsed * receipt.effectiveGasPrice;
  const checked = checkTransferReceipt(receipt, {
    token: paying.token.address,
    from: payer,
    to: getAddress(option.payTo),
    nonce: paying.authorization.nonce,
    minValue: option.amount,
  });
  if (services.settler) await adjustGas(database, { network: option.network, day, reservedWei, spentWei });
  if (checked.type === "rejected") {
    await markClaimFailed(database, claim.id);
    await releaseQuote(database, quote.id, paying.key);
    throw x402BadRequest(`x402 payment transaction ${hash} did not pay this quote: ${checked.message}`, {
      reason: "transfer_not_confirmed",
      transaction: hash,
    });
  }
  return creditSettled(context, claim, { hash, payer, value: checked.value, key: paying.key });
}

async function creditSettled(
  context: EvmSettleContext,
  claim: PaymentClaim,
  paid: { hash: Hash; payer: Address; value: bigint; key: string },
): Promise<Settlement> {
  const { option, quote } = context;
  const database = context.app.database.db;
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
    holdTtlSeconds: context.app.env.HOLD_TTL_SECONDS,
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
