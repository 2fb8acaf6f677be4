import type { AuthorizationFault } from "../../chains/evm/authorization-terms";
import type { Eip712Token } from "../../chains/evm/constants";
import type { TransferAuthorization } from "../../chains/evm/eip3009";
import { badRequest, GatewayError } from "../../errors/gateway-error";
import type { BaseDepositServices } from "./base-deposit-config";

/** What a Base deposit answers when it credits nothing. */

/** The smallest deposit: each one costs the operator a transaction's gas. */
export const MIN_BASE_DEPOSIT_MICROUNITS = 1_000_000n;

export function refused(reason: string, message: string): GatewayError {
  return badRequest(`${message}; nothing was credited`, {
    headers: { "x-should-retry": "false" },
    details: { reason },
  });
}

export function conflict(
  reason: string,
  message: string,
  deposit?: { transactionHash: string | null; status: string },
): GatewayError {
  return new GatewayError("conflict", message, {
    headers: { "x-should-retry": "false" },
    details: {
      reason,
      ...(deposit?.transactionHash ? { transaction: deposit.transactionHash } : {}),
      ...(deposit ? { status: deposit.status } : {}),
    },
  });
}

export function baseGasBudgetExhausted(): GatewayError {
  return new GatewayError(
    "service_unavailable",
    "the gateway's daily gas budget on Base is exhausted: try the deposit again tomorrow (UTC), or fund by card; nothing was credited",
    { headers: { "x-should-retry": "false" }, details: { reason: "gas_budget_exhausted" } },
  );
}

export function faultRefusal(
  fault: AuthorizationFault,
  { services, usdc }: { services: BaseDepositServices; usdc: Eip712Token },
  authorization: TransferAuthorization,
): GatewayError {
  switch (fault) {
    case "recipient":
      return refused(
        "recipient_mismatch",
        `the authorization pays ${authorization.to}, not this gateway's deposit address ${services.depositAddress}`,
      );
    case "below_minimum":
      return refused(
        "below_minimum",
        `a deposit must be at least ${MIN_BASE_DEPOSIT_MICROUNITS} microunits (1 USDC), not ${authorization.value}`,
      );
    case "not_yet_valid":
      return refused("valid_after", "the authorization is not valid yet (validAfter is in the future)");
    case "expired":
    case "outlives_terms":
      return refused(
        "valid_before",
        "the authorization has expired (validBefore has passed or is too close)",
      );
    case "nonce":
      return refused(
        "nonce_not_committed",
        'the authorization\'s nonce is not keccak256("usepod-deposit:" + deposit_code + ":" + salt) for this token and salt',
      );
    case "signature":
      return refused(
        "invalid_signature",
        `the signature does not recover to ${authorization.from} for USDC ${usdc.address} on ${services.chain.network}`,
      );
  }
}

export function transferFailed(hash: string | null, message: string): GatewayError {
  return refused("transfer_failed", `transaction ${hash} did not deposit: ${message}`);
}
