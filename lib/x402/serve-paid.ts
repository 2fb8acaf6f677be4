import { eq } from "drizzle-orm";
import { followServedJob } from "../canaries/check-answer";
import type { Executor } from "../db/client";
import { usageRecords } from "../db/schema";
import { GatewayError, toGatewayError } from "../errors/gateway-error";
import type { ApiRequest } from "../http/api-request";
import { getAccountBalance } from "../ledger/accounts";
import { log } from "../log";
import { receiptHeader } from "../proxy/request-receipt";
import type { ReservedHold } from "../proxy/reserve";
import { type ServingServices, serveReserved } from "../proxy/serve-reserved";
import { storedReceipt } from "../receipts/stored-receipt";
import type { RoutingServices } from "../routing/routing-state";
import { buildReceipt, encodeReceipt, type PaymentReceipt } from "./core/receipt";
import type { Settlement } from "./core/settlement";
import { candidatesWithinCap, type PricedRequest, unservableReason } from "./price-request";

/**
 * Serves a settled request through the prepaid path, with the payer's wallet account in
 * the place of a token's: the cap is already held there, the actual usage is charged when
 * the response ends, and what is left of the payment stays as the wallet's balance.
 */
export function servePaid(
  app: ServingServices & RoutingServices,
  request: ApiRequest,
  priced: PricedRequest,
  settlement: Settlement,
  requestId: string,
): Promise<Response> {
  const candidates = candidatesWithinCap(priced, settlement.quote.capMicrounits);
  return servePaidWith(app, settlement, requestId, {
    unservable: unservableReason(priced, settlement.quote.capMicrounits),
    serve: () =>
      serveReserved(app, request, {
        requestId,
        accountId: settlement.walletAccountId,
        inference: priced.inference,
        model: priced.model,
        modelOf: priced.modelOf,
        candidates,
        reservation: {
          hold: paidHold(settlement),
          availableAfter: settlement.availableAfter,
          maxOutputTokens: priced.maxOutputTokens,
        },
        maxInputTokens: priced.inputTokens,
        payer: { wallet: settlement.payerWallet, network: settlement.network },
        // A paid job is real traffic like a token's: it is followed by canaries and answer checks
        // at the same shares, so a host cannot cheat x402 callers only.
        onServed: followServedJob(app, priced.model, candidates),
      }),
  });
}

/** The cap a payment held, as the prepaid path's reservation names it. */
export function paidHold(settlement: Settlement): ReservedHold {
  return { kind: "row", id: settlement.holdId, amount: settlement.quote.capMicrounits };
}

/**
 * Serves a settled request (any kind: inference, images) against the cap its payment held,
 * and adds the PAYMENT-RESPONSE receipt. A request that cannot be served after its payment
 * settled releases the hold and charges nothing, so the whole payment remains credited to the
 * wallet; the error says so.
 */
export async function servePaidWith(
  app: Pick<ServingServices, "database" | "holds" | "leases" | "receipts">,
  settlement: Settlement,
  requestId: string,
  paid: { unservable: GatewayError | undefined; serve(): Promise<Response> },
): Promise<Response> {
  const database = app.database.db;
  let response: Response;
  try {
    // The cap was held inside the payment's transaction; from here this process keeps it alive.
    await app.holds.adopt(settlement.holdId);
    if (paid.unservable) throw paid.unservable;
    response = await paid.serve();
  } catch (error) {
    await app.holds.release(settlement.holdId);
    throw await creditedError(database, toGatewayError(error), settlement);
  }

  const headers = new Headers(response.headers);
  headers.set("x-should-retry", "false");
  const streamed =
    (headers.get("content-type") ?? "").includes("text/event-stream") && response.body !== null;
  if (streamed && response.body) {
    // Headers leave before the usage is known: the header states the cap as the charge, and
    // the final receipt follows as an SSE comment, which every SSE client ignores.
    headers.set(
      "payment-response",
      encodeReceipt(receiptFor(settlement, settlement.quote.capMicrounits, settlement.availableAfter, false)),
    );
    const body = response.body.pipeThrough(
      finalReceiptComment(async () => ({
        ...(await finalReceipt(database, settlement, requestId)),
        ...(await storedUsageReceipt(app, requestId)),
      })),
    );
    return new Response(body, { status: response.status, headers });
  }
  const usageReceipt = headers.get(receiptHeader);
  headers.set(
    "payment-response",
    encodeReceipt({
      ...(await finalReceipt(database, settlement, requestId)),
      ...(usageReceipt ? { usage_receipt: usageReceipt } : {}),
    }),
  );
  return new Response(response.body, { status: response.status, headers });
}

/** A stream's signed usage receipt, for its final PAYMENT-RESPONSE (written a moment before). */
async function storedUsageReceipt(
  app: Pick<ServingServices, "database" | "receipts" | "leases">,
  requestId: string,
): Promise<{ usage_receipt?: string }> {
  const receipt = await storedReceipt(app, requestId);
  return receipt === undefined ? {} : { usage_receipt: receipt };
}

async function finalReceipt(
  database: Executor,
  settlement: Settlement,
  requestId: string,
): Promise<PaymentReceipt> {
  const rows = await database
    .select({ cost: usageRecords.costMicrounits })
    .from(usageRecords)
    .where(eq(usageRecords.requestId, requestId));
  const balance = await getAccountBalance(database, settlement.walletAccountId);
  return receiptFor(settlement, rows[0]?.cost ?? 0n, balance.available, true);
}

function receiptFor(
  settlement: Settlement,
  charged: bigint,
  walletBalance: bigint,
  final: boolean,
): PaymentReceipt {
  return buildReceipt({
    quoteId: settlement.quote.id,
    scheme: settlement.scheme === "balance" ? "balance" : "exact",
    network: settlement.network,
    asset: settlement.asset,
    payer: settlement.payerWallet,
    transaction: settlement.transaction,
    receivedAmount: settlement.receivedAmount,
    capMicrounits: settlement.quote.capMicrounits,
    creditedMicrounits: settlement.creditedMicrounits,
    chargedMicrounits: charged,
    walletBalanceMicrounits: walletBalance,
    chargeFinal: final,
  });
}

const encoder = new TextEncoder();

function finalReceiptComment(
  receipt: () => Promise<PaymentReceipt>,
): TransformStream<Uint8Array, Uint8Array> {
  return new TransformStream({
    async flush(controller) {
      try {
        controller.enqueue(encoder.encode(`: PAYMENT-RESPONSE ${encodeReceipt(await receipt())}\n\n`));
      } catch (error) {
        log.warn("x402: final stream receipt failed", { error });
      }
    },
  });
}

/** The serving error, plus what the caller needs to know: its payment stayed credited. */
async function creditedError(
  database: Executor,
  error: GatewayError,
  settlement: Settlement,
): Promise<GatewayError> {
  const balance = await getAccountBalance(database, settlement.walletAccountId);
  const notice =
    settlement.scheme === "balance"
      ? "nothing was charged to the wallet balance"
      : `the payment of ${settlement.creditedMicrounits} microunits was credited to the wallet balance of ${settlement.payerWallet}; spend it with scheme "balance"`;
  const receipt = receiptFor(settlement, 0n, balance.available, true);
  return new GatewayError(error.type, `${error.message} (${notice})`, {
    status: error.status,
    cause: error,
    ...(error.param ? { param: error.param } : {}),
    headers: { ...error.headers, "payment-response": encodeReceipt(receipt), "x-should-retry": "false" },
    details: {
      ...error.details,
      payer_wallet: settlement.payerWallet,
      credited_microunits: Number(settlement.creditedMicrounits),
      wallet_balance_microunits: Number(balance.available),
    },
  });
}
