import type { BalanceWatchServices } from "../balance-watch/balance-watch-services";
import type { Executor } from "../db/client";
import type { KeyServices } from "../keys/key-services";
import { type AccountKind, ensureAccount, systemAccounts, upstreamExcessAccount } from "../ledger/accounts";
import type { LedgerServices } from "../ledger/ledger-services";
import type { ReceiptSlot } from "../ledger/receipt-slot";
import type { LeaseSettlement } from "../ledger/settle-batch";
import {
  inferenceMetadata,
  type SettleInferenceResult,
  settleInference,
  type UpstreamExcessBooking,
} from "../ledger/settle-inference";
import { log } from "../log";
import { gatewayMetrics } from "../metrics/gateway-metrics";
import { costOfUsage, type TokenPrice, type Usage } from "../pricing/cost";
import type { Candidate } from "../providers/candidate";
import type { Services } from "../services";
import { afterAnswer } from "./after-answer";
import type { ReservedHold } from "./reserve";

export type RequestOutcome =
  /** A stream its process died in: billed from its last journaled running count. */
  "interrupted" | "completed" | "client_aborted" | "client_stalled" | "upstream_error" | "stream_cut";

export interface SettleRequestInput {
  requestId: string;
  accountId: bigint;
  hold: ReservedHold;
  candidate: Candidate;
  model: string;
  usage: Usage;
  outcome: RequestOutcome;
  /** What a trusted source reported beyond `usage` (the meter's caps): booked as upstream excess on centralized routes. */
  excess?: Usage;
  /** Answered from the response cache: the usage record's route says so, and the charge is the gateway's alone. */
  servedFrom?: "cache";
  /** How the receipt signed after this settlement is stored with it, if its batch is still to be written. */
  receipt?: ReceiptSlot;
}

/**
 * Never past the hold, on any route: the meter caps usage at the limits the hold was sized
 * for, so a charge above it would mean the meter is wrong, and the hold is the promise.
 */
const chargeBeyondHold = false;

/** Provider share of marketplace and relay revenue, in percent; the treasury keeps the rest. */
export const providerSharePercent = 80n;

/**
 * A price per request is owed for an answer given: a caller who walks away or stalls still
 * owes it, as it owes the tokens relayed; an answer the upstream cut, or one this process
 * died in (`interrupted`), is owed nothing, as no token count can say how much of it arrived.
 */
function owedPrice(price: TokenPrice, outcome: RequestOutcome): TokenPrice {
  if (price.requestPrice === undefined) return price;
  const answered = outcome === "completed" || outcome === "client_aborted" || outcome === "client_stalled";
  return answered ? price : { ...price, requestPrice: 0n };
}

/**
 * Account ids never change once created, so the hot path looks each one up once per process.
 * The lookup itself is what is kept: requests that settle together before the first answer
 * (a burst on a fresh process) share it instead of each sending their own, which on Postgres
 * queued two thousand statements behind ten connections and held a thousand streams' ends
 * for over a second.
 */
const accountIds = new WeakMap<Executor, Map<string, Promise<bigint>>>();

function cachedAccountId(executor: Executor, kind: AccountKind, ref: string): Promise<bigint> {
  let perDatabase = accountIds.get(executor);
  if (!perDatabase) {
    perDatabase = new Map();
    accountIds.set(executor, perDatabase);
  }
  const key = `${kind}:${ref}`;
  const cached = perDatabase.get(key);
  if (cached !== undefined) return cached;
  if (perDatabase.size > 100_000) perDatabase.clear();
  const lookup = ensureAccount(executor, kind, ref);
  perDatabase.set(key, lookup);
  // A failed lookup is not kept: the next request asks again.
  lookup.catch(() => {
    if (perDatabase.get(key) === lookup) perDatabase.delete(key);
  });
  return lookup;
}

/** The settlement of a request against a lease, as journaled and written (lib/ledger/settle-batch.ts). */
export async function leaseSettlementOf(
  app: Pick<Services, "database"> & LedgerServices,
  input: SettleRequestInput,
): Promise<Omit<LeaseSettlement, "leaseId" | "charged">> {
  const { shared, usageRecord } = await settlementParts(app, input);
  return { ...shared, requestId: input.requestId, usageRecord };
}

async function settlementParts(app: Pick<Services, "database"> & LedgerServices, input: SettleRequestInput) {
  const database = app.database.db;
  const treasuryAccountId = await cachedAccountId(
    database,
    systemAccounts.treasury.kind,
    systemAccounts.treasury.ref,
  );
  const lossAccountId = await cachedAccountId(
    database,
    systemAccounts.inferenceLoss.kind,
    systemAccounts.inferenceLoss.ref,
  );
  const providerAccountId =
    input.candidate.route === "centralized" || input.servedFrom
      ? undefined
      : await cachedAccountId(database, "provider", input.candidate.providerId);
  const cost = costOfUsage(input.usage, owedPrice(input.candidate.price, input.outcome));
  const upstreamExcess = await upstreamExcessOf(database, input);
  const usageRecord = {
    model: input.model,
    route: input.servedFrom ?? input.candidate.route,
    providerId: input.candidate.providerId,
    usage: input.usage,
    outcome: input.outcome,
    ...(input.hold.apiKeyId === undefined ? {} : { apiKeyId: input.hold.apiKeyId }),
  };
  const shared = {
    accountId: input.accountId,
    cost,
    treasuryAccountId,
    lossAccountId,
    ...(providerAccountId === undefined ? {} : { providerAccountId }),
    providerSharePercent,
    ...(upstreamExcess === undefined ? {} : { upstreamExcess }),
    // Rebuilt the same way when a journaled settlement is read back (journal-payload.ts).
    metadata: inferenceMetadata(input.requestId, usageRecord),
  };
  return { cost, shared, usageRecord };
}

/**
 * What a centralized upstream reported beyond the bill, at the route's token rates (the
 * request's own price is in the bill already): the operator pays its vendor for it. Marketplace
 * hosts and key relays are paid a share of what was charged, never of a claim, so they have none.
 */
async function upstreamExcessOf(
  executor: Executor,
  input: SettleRequestInput,
): Promise<UpstreamExcessBooking | undefined> {
  if (input.candidate.route !== "centralized" || input.excess === undefined) return undefined;
  const amount = costOfUsage(input.excess, { ...input.candidate.price, requestPrice: undefined });
  if (amount === 0n) return undefined;
  const account = upstreamExcessAccount(input.candidate.providerId);
  return { accountId: await cachedAccountId(executor, account.kind, account.ref), amount };
}

/**
 * Charges the actual usage and releases the rest of the hold, in one statement.
 * Centralized revenue goes to the treasury; marketplace and relay revenue is split 80/20.
 */
export async function settleRequest(
  app: Pick<Services, "database"> & LedgerServices & KeyServices & BalanceWatchServices,
  input: SettleRequestInput,
) {
  const database = app.database.db;
  const { cost, shared, usageRecord } = await settlementParts(app, input);
  let settled: SettleInferenceResult;
  if (input.hold.kind === "lease") {
    if (!app.leases) throw new Error("a lease hold was placed but this process has no leases");
    settled = await app.leases.settle(
      {
        ...shared,
        requestId: input.requestId,
        usageRecord,
        ...(input.receipt ? { receipt: input.receipt } : {}),
      },
      input.hold.amount,
      chargeBeyondHold,
    );
  } else {
    app.holds.forget(input.hold.id);
    settled = await settleInference(database, {
      ...shared,
      holdId: input.hold.id,
      chargeBeyondHold,
      idempotencyKey: `inference:${input.requestId}`,
      usageRecord: { requestId: input.requestId, ...usageRecord },
    });
  }
  // The key's limit counts the charge from now on (its claim goes back).
  if (input.hold.key) app.keyLimits.settle(input.hold.key, input.requestId, settled.charged);
  // A low-balance alert or auto top-up of this account may be due (a map lookup when none is set).
  if (settled.charged > 0n) app.balanceWatch.afterCharge(input.accountId, settled.availableAfter);
  const { charged, shortfall } = settled;
  afterAnswer(() => {
    gatewayMetrics.settlements.inc({ outcome: input.outcome, route: input.candidate.route });
    gatewayMetrics.chargedMicrounits.inc({}, Number(charged));
    if (shared.upstreamExcess)
      gatewayMetrics.upstreamExcessMicrounits.inc(
        { provider: input.candidate.providerId },
        Number(shared.upstreamExcess.amount),
      );
    if (shortfall > 0n) {
      gatewayMetrics.lossEvents.inc();
      gatewayMetrics.lossMicrounits.inc({}, Number(shortfall));
    }
  });
  if (shortfall > 0n) {
    log.warn("usage cost exceeded what the account could cover: shortfall posted to the loss account", {
      requestId: input.requestId,
      cost: cost.toString(),
      charged: settled.charged.toString(),
      shortfall: shortfall.toString(),
      provider: input.candidate.providerId,
    });
  }
  return settled;
}
