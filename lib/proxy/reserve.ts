import type { Executor } from "../db/client";
import { GatewayError } from "../errors/gateway-error";
import { placeBoundedHold } from "../ledger/holds";
import { gatewayMetrics } from "../metrics/gateway-metrics";
import { affordableOutputTokens, type TokenPrice, worstCaseCost } from "../pricing/cost";

export interface Reservation {
  holdId: string;
  /** Available balance once the hold is placed (the stream's X-Balance-Remaining). */
  availableAfter: bigint;
  /** The per-choice output limit the hold covers: the one limit forwarded upstream. */
  maxOutputTokens: number;
}

export interface ReserveInput {
  accountId: bigint;
  price: TokenPrice;
  inputTokens: number;
  /** The per-choice output limit asked for (the caller's, else the model's). */
  maxOutputTokens: number;
  /** OpenAI `n`: each choice is billed. */
  choices: number;
  /** The caller set its own limit: hold it whole if the balance allows. */
  callerLimit: boolean;
  /** Without a caller limit, hold at most 1/share of the free balance above the minimum. */
  balanceShare: number;
  ttlSeconds: number;
  /** The gateway instance serving the request. */
  owner: string;
}

/**
 * Holds the worst case of the request, in one statement. When the balance cannot cover
 * it, or the caller set no limit and the worst case would take more than its share of the
 * free balance, the output limit is bounded to what the hold covers instead, so no request
 * overdraws an account and concurrent requests do not refuse each other.
 */
export async function reserveForRequest(executor: Executor, input: ReserveInput): Promise<Reservation> {
  const worst = (outputTokens: number) =>
    worstCaseCost(input.inputTokens, outputTokens * input.choices, input.price);
  const hold = await placeBoundedHold(executor, {
    accountId: input.accountId,
    max: worst(input.maxOutputTokens),
    min: worst(1),
    share: input.callerLimit ? 1n : BigInt(input.balanceShare),
    ttlSeconds: input.ttlSeconds,
    owner: input.owner,
  });
  if (hold.type === "insufficient") {
    gatewayMetrics.holdsRefused.inc();
    throw insufficient(hold.available);
  }
  gatewayMetrics.holdsPlaced.inc();
  gatewayMetrics.heldMicrounits.inc({}, Number(hold.amount));
  const covered = Math.floor(
    affordableOutputTokens(hold.amount, input.inputTokens, input.price) / input.choices,
  );
  return {
    holdId: hold.holdId,
    availableAfter: hold.availableAfter,
    maxOutputTokens: Math.max(1, Math.min(input.maxOutputTokens, covered)),
  };
}

function insufficient(available: bigint): GatewayError {
  return new GatewayError("insufficient_balance", "insufficient balance: fund this token to continue", {
    details: { available_microunits: Number(available) },
  });
}
