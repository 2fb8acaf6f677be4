import type { Database } from "../db/client";
import { GatewayError } from "../errors/gateway-error";
import { getAccountBalance } from "../ledger/accounts";
import { placeHold } from "../ledger/holds";
import { affordableOutputTokens, type TokenPrice, worstCaseCost } from "../pricing/cost";

export interface Reservation {
  holdId: string;
  /** Available balance once the hold is placed (the stream's X-Balance-Remaining). */
  availableAfter: bigint;
  /** Set when the balance could not cover the caller's output limit: the bounded upstream limit. */
  boundedMaxTokens: number | undefined;
}

export interface ReserveInput {
  accountId: bigint;
  price: TokenPrice;
  inputTokens: number;
  maxOutputTokens: number;
  ttlSeconds: number;
}

/**
 * Holds the worst-case cost. When the balance cannot cover it, the output limit is
 * bounded to what the balance covers instead, so no request can overdraw an account.
 */
export async function reserveForRequest(database: Database, input: ReserveInput): Promise<Reservation> {
  // The common case first: the balance covers the worst case, and one statement holds it.
  const worstCase = worstCaseCost(input.inputTokens, input.maxOutputTokens, input.price);
  const optimistic = await placeHold(database, input.accountId, worstCase, input.ttlSeconds);
  if (optimistic.type === "held") {
    return {
      holdId: optimistic.holdId,
      availableAfter: optimistic.availableAfter,
      boundedMaxTokens: undefined,
    };
  }
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const { available } = await getAccountBalance(database, input.accountId);
    let maxTokens = input.maxOutputTokens;
    let bounded: number | undefined;
    let amount = worstCaseCost(input.inputTokens, maxTokens, input.price);
    if (amount > available) {
      const affordable = affordableOutputTokens(available, input.inputTokens, input.price);
      if (affordable < 1) throw insufficient(available);
      maxTokens = Math.min(maxTokens, affordable);
      bounded = maxTokens;
      amount = worstCaseCost(input.inputTokens, maxTokens, input.price);
    }
    const hold = await placeHold(database, input.accountId, amount, input.ttlSeconds);
    // Another request took the balance between the read and the hold: read again.
    if (hold.type === "held")
      return { holdId: hold.holdId, availableAfter: hold.availableAfter, boundedMaxTokens: bounded };
  }
  throw insufficient(0n);
}

function insufficient(available: bigint): GatewayError {
  return new GatewayError("insufficient_balance", "insufficient balance: fund this token to continue", {
    details: { available_microunits: Number(available) },
  });
}
