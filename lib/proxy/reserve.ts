import { GatewayError } from "../errors/gateway-error";
import type { KeyPrincipal } from "../keys/key-principal";
import type { KeyServices } from "../keys/key-services";
import type { KeyClaim, KeyClaimRequest } from "../keys/key-spend-limits";
import { placeBoundedHold } from "../ledger/holds";
import type { LedgerServices } from "../ledger/ledger-services";
import { outstandingOf } from "../ledger/receivables";
import { gatewayMetrics } from "../metrics/gateway-metrics";
import { affordableOutputTokens, type TokenPrice, worstCaseCost } from "../pricing/cost";
import type { Services } from "../services";
import { inSpan } from "../telemetry/tracing";

/**
 * A hold row of its own (x402, or leases off), or an amount held in memory against this
 * process's lease; with the claim on its key's spend limit when a limited key made the request.
 */
/** `amount`: what the hold covers (a row's amount when placed; a stream's running count is capped at it). */
export type ReservedHold = (
  | { kind: "row"; id: string; amount: bigint }
  | { kind: "lease"; amount: bigint }
) & {
  /** The further API key that made the request (its usage record names it). */
  apiKeyId?: string;
  key?: KeyClaim;
};

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
  /** The further API key making the request, if any: its spend limit bounds the hold. */
  key?: KeyPrincipal | undefined;
}

/**
 * Holds the worst case of the request, in one statement. When the balance cannot cover it
 * whole, or the caller set no limit, the hold is at most a share of the free balance
 * (`HOLD_BALANCE_SHARE`) and the output limit is bounded to what it covers, so no request
 * overdraws an account and one large request does not starve the others. A request is
 * refused only when the free balance cannot pay for one output token.
 */
export function reserveForRequest(
  app: Services & LedgerServices & KeyServices,
  input: ReserveInput,
): Promise<Reservation> {
  return inSpan("hold", {}, async (span) => {
    const reservation = await placeHold(app, input);
    span?.setAttribute("pod.hold_microunits", reservation.hold.amount.toString());
    return reservation;
  });
}

async function placeHold(
  app: Services & LedgerServices & KeyServices,
  input: ReserveInput,
): Promise<Reservation> {
  const worst = (outputTokens: number) =>
    worstCaseCost(input.inputTokens, outputTokens * input.choices, input.price);
  const bounds = {
    accountId: input.accountId,
    max: worst(input.maxOutputTokens),
    min: worst(1),
    share: BigInt(input.balanceShare),
    whole: input.callerLimit,
  };
  // A limited key claims its share of the limit first (synchronously against racing requests);
  // the hold is never more than the claim, so the charge never takes the key past its limit.
  const keyClaim = await claimKeyLimit(app, input.key, {
    most: bounds.max,
    least: bounds.min,
    share: bounds.share,
    whole: bounds.whole,
  });
  if (keyClaim) bounds.max = keyClaim.amount;
  try {
    const { reservation, amount } = await reserveBalance(app, input, bounds);
    if (input.key) reservation.hold.apiKeyId = input.key.id;
    if (keyClaim) {
      app.keyLimits.shrink(keyClaim, amount);
      reservation.hold.key = keyClaim;
    }
    return reservation;
  } catch (error) {
    if (keyClaim) app.keyLimits.release(keyClaim);
    throw error;
  }
}

async function claimKeyLimit(
  app: KeyServices,
  key: KeyPrincipal | undefined,
  request: KeyClaimRequest,
): Promise<KeyClaim | undefined> {
  // A free request (a model priced at 0) spends nothing of the limit.
  if (!key?.limit || request.most === 0n) return undefined;
  const claimed = await app.keyLimits.claim(key.id, key.limit, request);
  if (claimed.type === "claimed") return claimed.claim;
  gatewayMetrics.holdsRefused.inc();
  const { limit, spent, resetsAt } = claimed;
  const figures = {
    limit_microunits: Number(limit.microunits),
    limit_period: limit.period,
    spent_microunits: Number(spent),
    needed_microunits: Number(request.least),
    resets_at: resetsAt.toISOString(),
  };
  if (claimed.type === "crowded")
    throw new GatewayError(
      "rate_limited",
      `too many requests in flight on this key: ${claimed.inFlight} running requests claim ${formatMicrounits(claimed.claimed)} of what is left of its ${formatMicrounits(limit.microunits)} per ${limit.period} limit (${formatMicrounits(spent)} spent), and none settled in time; retry when they finish`,
      {
        details: { ...figures, claimed_microunits: Number(claimed.claimed), in_flight: claimed.inFlight },
        headers: { "retry-after": "1" },
      },
    );
  throw new GatewayError(
    "key_limit_reached",
    `key limit reached: this key may spend ${formatMicrounits(limit.microunits)} USD per ${limit.period} (UTC) and has spent ${formatMicrounits(spent)}, less than one more request's least cost (${formatMicrounits(request.least)}) from the limit; it resets at ${resetsAt.toISOString()}. The account's other keys and its token are not limited by it`,
    { details: figures },
  );
}

/** Dollars with every microunit shown: a limit message must not round. */
function formatMicrounits(microunits: bigint): string {
  const whole = microunits / 1_000_000n;
  const fraction = (microunits % 1_000_000n)
    .toString()
    .padStart(6, "0")
    .replace(/0{1,4}$/, "");
  return `$${whole}.${fraction.padEnd(2, "0")}`;
}

async function reserveBalance(
  app: Services & LedgerServices,
  input: ReserveInput,
  bounds: { accountId: bigint; max: bigint; min: bigint; share: bigint; whole: boolean },
): Promise<{ reservation: Reservation; amount: bigint }> {
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
    hold =
      placed.type === "held"
        ? { ...placed, held: { kind: "row", id: placed.holdId, amount: placed.amount } }
        : placed;
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
    reservation: {
      hold: hold.held,
      availableAfter: hold.availableAfter,
      maxOutputTokens: Math.max(1, Math.min(input.maxOutputTokens, covered)),
    },
    amount: hold.amount,
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
  app: Services & LedgerServices & KeyServices,
  accountId: bigint,
  hold: ReservedHold,
): Promise<void> {
  if (hold.key) app.keyLimits.release(hold.key);
  if (hold.kind === "lease") app.leases?.release(accountId, hold.amount);
  else await app.holds.release(hold.id);
}

/**
 * Holds a request whose most is known before dispatch and produces no output tokens
 * (embeddings: their input; images: `n` × the price per image) whole, or refuses it.
 */
export function reserveBounded(
  app: Services & LedgerServices & KeyServices,
  input: { accountId: bigint; price: TokenPrice; inputTokens: number; key: KeyPrincipal | undefined },
  balanceShare: number,
): Promise<Reservation> {
  return reserveForRequest(app, {
    ...input,
    maxOutputTokens: 0,
    choices: 1,
    callerLimit: true,
    balanceShare,
  });
}
