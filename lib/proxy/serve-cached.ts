import { createHash } from "node:crypto";
import type { InferenceRequest } from "../dialects/inference-request";
import { translateResponse, wholeResponseAsStream } from "../dialects/translate";
import { callerFormats } from "../dialects/wire-format";
import { BufferedResponse } from "../http/buffered-response";
import type { KeyPrincipal } from "../keys/key-principal";
import { log } from "../log";
import { emptyUsage, type TokenPrice } from "../pricing/cost";
import type { Candidate } from "../providers/candidate";
import { issueReceipt } from "../receipts/issue-receipt";
import type { CachedAnswer } from "../response-cache/cached-answer";
import { receiptHeader } from "./request-receipt";
import type { SettlementServices } from "./request-settlement";
import { releaseReservation, reserveForRequest } from "./reserve";
import { settleRequest } from "./settle-request";

export interface CachedServing {
  requestId: string;
  accountId: bigint;
  inference: InferenceRequest;
  answer: CachedAnswer;
  /** What the hit costs (the cache's policy: a share of the original cost). */
  charge: bigint;
  key: KeyPrincipal | undefined;
}

const frames = new TextDecoder();

/** The kept reply in the caller's format: one JSON body, or the whole event stream it would have been. */
function render(answer: CachedAnswer, inference: InferenceRequest): { body: string; contentType: string } {
  const kept = JSON.parse(answer.body) as Record<string, unknown>;
  if (inference.stream) {
    const stream = wholeResponseAsStream(answer.dialect, inference.dialect, kept, {
      model: inference.model,
      includeUsage: inference.includeUsage,
      callerRequest: inference.body,
    });
    return { body: stream.map((frame) => frames.decode(frame)).join(""), contentType: "text/event-stream" };
  }
  const reply = translateResponse(answer.dialect, inference.dialect, kept, inference.model, inference.body);
  return { body: JSON.stringify(reply), contentType: "application/json" };
}

/** The cache as a source for the ledger: the gateway's own, priced per request at the hit's charge. */
function cacheSource(answer: CachedAnswer, charge: bigint): Candidate {
  const price: TokenPrice = {
    inputPer1m: 0n,
    outputPer1m: 0n,
    cacheReadPer1m: 0n,
    cacheWritePer1m: 0n,
    requestPrice: charge,
  };
  return {
    route: "centralized",
    providerId: answer.provider,
    dialect: answer.dialect,
    upstreamModelId: answer.model,
    price,
    dispatch: () => Promise.reject(new Error("a cached answer is never dispatched")),
  };
}

/**
 * Answers from a kept answer: rendered first (a kept answer that no longer renders is a miss,
 * nothing billed), then held and billed through the ledger like any request, at the hit's price
 * (the whole charge to the treasury; the usage record's route is `cache`), in the caller's
 * format, streamed when asked. Undefined when the answer cannot be rendered.
 */
export async function serveCachedAnswer(
  app: SettlementServices,
  serving: CachedServing,
): Promise<Response | undefined> {
  const { answer, inference, charge } = serving;
  let rendered: { body: string; contentType: string };
  try {
    rendered = render(answer, inference);
  } catch (error) {
    log.warn("response cache: a kept answer could not be rendered, served as a miss", { error });
    return undefined;
  }
  const source = cacheSource(answer, charge);
  const reservation = await reserveForRequest(app, {
    accountId: serving.accountId,
    price: source.price,
    inputTokens: 0,
    maxOutputTokens: 1,
    choices: 1,
    callerLimit: true,
    balanceShare: app.env.HOLD_BALANCE_SHARE,
    key: serving.key,
  });
  let settled: Awaited<ReturnType<typeof settleRequest>>;
  try {
    settled = await settleRequest(app, {
      requestId: serving.requestId,
      accountId: serving.accountId,
      hold: reservation.hold,
      candidate: source,
      model: answer.model,
      usage: emptyUsage,
      outcome: "completed",
      servedFrom: "cache",
    });
  } catch (error) {
    await releaseReservation(app, serving.accountId, reservation.hold);
    throw error;
  }
  const jws = await receiptOfHit(app, serving, source, settled.charged, rendered.body);
  recordHit(app, serving, source, settled.charged, jws, rendered.body);
  // A stream's receipt is its last SSE comment (over the bytes before it), as on a served stream.
  const body = jws && inference.stream ? `${rendered.body}: ${receiptHeader} ${jws}\n\n` : rendered.body;
  return new BufferedResponse(body, {
    status: 200,
    headers: {
      ...(jws && !inference.stream ? { [receiptHeader]: jws } : {}),
      "content-type": rendered.contentType,
      [callerFormats[inference.dialect].requestIdHeader]: serving.requestId,
      "x-balance-remaining": settled.availableAfter.toString(),
      "x-pod-route": "cache",
      "x-pod-provider-id": answer.provider,
      "x-pod-cache": "hit",
      "x-pod-cache-age": String(Math.max(0, Math.floor((Date.now() - answer.storedAt) / 1000))),
      "x-pod-cost-microunits": settled.charged.toString(),
      "x-should-retry": "false",
    },
  });
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * A hit is billed like any request, so it gets a receipt like one: no tokens counted
 * (`cache_hit`), the hit's price as the charge, none of it to a host. Undefined with receipts
 * off, or when signing failed (logged; the money has moved either way).
 */
async function receiptOfHit(
  app: SettlementServices,
  serving: CachedServing,
  source: Candidate,
  charged: bigint,
  responseBody: string,
): Promise<string | undefined> {
  if (!app.receipts) return undefined;
  try {
    return await issueReceipt(app.receipts, {
      requestId: serving.requestId,
      accountId: serving.accountId,
      model: serving.inference.model,
      route: "cache",
      providerId: serving.answer.provider,
      price: source.price,
      usage: emptyUsage,
      countedBy: "cache_hit",
      bounded: false,
      charged,
      hostShare: 0n,
      outcome: "completed",
      requestSha256: sha256(serving.inference.rawBody),
      responseSha256: sha256(responseBody),
    });
  } catch (error) {
    log.error("receipt signing failed", { requestId: serving.requestId, error });
    return undefined;
  }
}

/** The hit's usage record, when records go somewhere. */
function recordHit(
  app: SettlementServices,
  serving: CachedServing,
  source: Candidate,
  charged: bigint,
  receipt: string | undefined,
  responseBody: string,
): void {
  app.usageRecords?.record({
    requestId: serving.requestId,
    accountId: serving.accountId,
    payer: undefined,
    model: serving.inference.model,
    servedModel: serving.answer.model,
    route: "cache",
    providerId: source.providerId,
    usage: emptyUsage,
    countedBy: "cache_hit",
    charged,
    hostShare: 0n,
    outcome: "completed",
    receipt,
    traceparent: undefined,
    content: () => ({ request: serving.inference.rawBody, response: responseBody }),
  });
}
