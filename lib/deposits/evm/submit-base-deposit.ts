import type { Hex } from "viem";
import { authorizationFault } from "../../chains/evm/authorization-terms";
import { runAuthorizedTransfer } from "../../chains/evm/authorized-transfer";
import { authorizationKey, type TransferAuthorization } from "../../chains/evm/eip3009";
import { settlerSubmitter } from "../../chains/evm/settler-submit";
import type { Database } from "../../db/client";
import { GatewayError } from "../../errors/gateway-error";
import { log } from "../../log";
import type { TokenRecord } from "../../tokens/find-token";
import type { BaseDepositServices } from "./base-deposit-config";
import {
  baseGasBudgetExhausted,
  faultRefusal,
  MIN_BASE_DEPOSIT_MICROUNITS,
  refused,
  transferFailed,
} from "./base-deposit-errors";
import { depositNonce } from "./base-deposit-nonce";
import {
  type BaseDepositOutcome,
  creditDeposit,
  type Depositing,
  depositClaims,
  expectedTransfer,
} from "./base-deposit-records";
import { resumeSeen, resumeWinner } from "./resume-base-deposit";

/**
 * Funds `token` with a USDC transfer the payer signed as an EIP-3009 authorization to the
 * deposit address, exactly once. The checks that need no chain (recipient, amount, window,
 * the nonce's commitment to the token's deposit_code, the signature over the USDC domain);
 * then a claim this authorization already has is resumed, and one already used on-chain by
 * someone else is adopted; otherwise the one EVM transfer (`runAuthorizedTransfer`: claim and
 * gas reservation, submission by our settler, receipt) moves it, and the credit is posted in
 * one ledger transaction with the claim's move to `credited`.
 */
export async function submitBaseDeposit(
  database: Database,
  services: BaseDepositServices,
  token: TokenRecord,
  input: { authorization: TransferAuthorization; salt: Hex },
): Promise<BaseDepositOutcome> {
  const { authorization, salt } = input;
  const { chain } = services;
  const usdc = await chain.tokenDomain();
  const depositing: Depositing = { services, usdc, token };
  const fault = await authorizationFault(services.publicClient, authorization, {
    chainId: chain.chainId,
    token: usdc,
    payTo: services.depositAddress,
    minValue: MIN_BASE_DEPOSIT_MICROUNITS,
    nonce: depositNonce(token.depositCode, salt),
  });
  if (fault) throw faultRefusal(fault, depositing, authorization);
  const key = authorizationKey(usdc.address, authorization);

  const seen = await resumeSeen(database, depositing, { authorization, salt, key });
  if (seen) return seen;

  const outcome = await runAuthorizedTransfer({
    database,
    network: chain.network,
    publicClient: chain.publicClient,
    gasDailyBudgetWei: services.gasDailyBudgetWei,
    claims: depositClaims(database, depositing, { authorization, salt, key }),
    submit: settlerSubmitter({
      publicClient: chain.publicClient,
      wallet: services.wallet,
      chain: chain.chain,
      settler: services.settler,
      token: usdc.address,
      authorization,
    }),
    expected: expectedTransfer(depositing, authorization),
    receiptTimeoutMs: services.receiptTimeoutMs,
  });
  switch (outcome.type) {
    case "not_claimed":
      if (outcome.reason === "claim_taken") return resumeWinner(database, depositing, key);
      throw baseGasBudgetExhausted();
    case "refused":
      if (outcome.reason !== "submission_failed") {
        throw refused(outcome.reason, `the USDC contract refuses this transfer (${outcome.message})`);
      }
      log.warn("base deposit: submission failed", {
        error: outcome.cause,
        deposit: outcome.claim.id.toString(),
      });
      throw new GatewayError(
        "upstream_error",
        "the deposit could not be submitted to Base; nothing was credited, try again",
        { details: { reason: "submission_failed" } },
      );
    case "unknown":
      // The settler's submitter answers every failure; a claim left like this resumes from the chain.
      return { type: "pending", deposit: outcome.claim };
    case "pending":
      return { type: "pending", deposit: { ...outcome.claim, transactionHash: outcome.hash } };
    case "rejected":
      throw transferFailed(outcome.hash, outcome.message);
    case "transferred":
      return creditDeposit(database, token, { ...outcome.claim, transactionHash: outcome.hash });
    default: {
      const unreachable: never = outcome;
      return unreachable;
    }
  }
}
