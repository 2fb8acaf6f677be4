import type { AppContext } from "../app-context";
import { GatewayError } from "../errors/gateway-error";
import { placeBoundedHold } from "../ledger/holds";
import { outstandingOf } from "../ledger/receivables";
import { gatewayMetrics } from "../metrics/gateway-metrics";
import { affordableOutputTokens, type TokenPrice, worstCaseCost } from "../pricing/cost";

/** A hold row of its own (x402, or leases off), or an amount held in memory against this process's lease. */
export type ReservedHold = { kind: "row"; id: string } | { kind: "lease"; amount: bigint };

export interface Reservation {
  hold: ReservedHold;
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
}

/**
 * Holds the worst case of the request, in one statement. When the balance cannot cover it
 * whole, or the caller set no limit, the hold is at most a share of the free balance
 * (`HOLD_BALANCE_SHARE`) and the output limit is bounded to what it covers, so no request
 * overdraws an account and one large request does not starve the others. A request is
 * refused only when the free balance cannot pay for one output token.
 */
export async function reserveForRequest(app: AppContext, input: ReserveInput): Promise<Reservation> {
  const worst = (outputTokens: number) =>
    worstCaseCost(input.inputTokens, outputTokens * input.choices, input.price);
  const bounds = {
    accountId: input.accountId,
    max: worst(input.maxOutputTokens),
    min: worst(1),
    share: BigInt(input.balanceShare),
    whole: input.callerLimit,
  };
  let hold:
    | { type: "insufficient"; available: bigint; owes?: boolean | undefined }
    | { type: "held"; amount: bigint; availableAfter: bigint; held: ReservedHold };
  if (app.leases) {
    const leased = await app.leases.hold(bounds);
    hold = leased.type === "held" ? { ...leased, held: { kind: "lease", amount: leased.amount } } : leased;
  } else {
    const placed = await placeBoundedHold(app.database.db, {
      ...bounds,
      ttlSeconds: app.env.HOLD_TTL_SECONDS,
      owner: app.holds.instanceId,
    });
    if (placed.type === "held") app.holds.track(placed.holdId);
    hold = placed.type === "held" ? { ...placed, held: { kind: "row", id: placed.holdId } } : placed;
  }
  if (hold.type === "insufficient") {
    gatewayMetrics.holdsRefused.inc();
    if (hold.owes) throw owing(await outstandingOf(app.database.db, input.accountId), bounds.min);
    throw insufficient(hold.available, bounds.min);
  }
  gatewayMetrics.holdsPlaced.inc();
  gatewayMetrics.heldMicrounits.inc({}, Number(hold.amount));
  const covered = Math.floor(
    affordableOutputTokens(hold.amount, input.inputTokens, input.price) / input.choices,
  );
  return {
    hold: hold.held,
    availableAfter: hold.availableAfter,
    maxOutputTokens: Math.max(1, Math.min(input.maxOutputTokens, covered)),
  };
}

/** The 402 says what is free now (the balance less what requests in flight hold) and the least this request needs. */
function insufficient(available: bigint, needed: bigint): GatewayError {
  return new GatewayError(
    "insufficient_balance",
    `insufficient balance: ${available} microunits are free and this request needs at least ${needed}; fund this token to continue`,
    { details: { available_microunits: Number(available), needed_microunits: Number(needed) } },
  );
}

function owing(receivable: bigint, needed: bigint): GatewayError {
  return new GatewayError(
    "insufficient_balance",
    `insufficient balance: a card refund or dispute left ${receivable} microunits owed on this token; new funding pays that first, and spending resumes once it is paid`,
    {
      details: {
        available_microunits: 0,
        needed_microunits: Number(needed),
        receivable_microunits: Number(receivable),
      },
    },
  );
}

/** The request failed before anything was billed: its hold goes back, whole. */
export async function releaseReservation(
  app: AppContext,
  accountId: bigint,
  hold: ReservedHold,
): Promise<void> {
  if (hold.kind === "lease") app.leases?.release(accountId, hold.amount);
  else await app.holds.release(hold.id);
}
