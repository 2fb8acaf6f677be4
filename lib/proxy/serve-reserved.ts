import type { HostAttestation } from "@pod-gateway/contracts/usage-receipt";
import { createExchange } from "../dialects/exchange/create-exchange";
import type { Exchange } from "../dialects/exchange/exchange";
import { translateStreamedResponse } from "../dialects/translate";
import { callerFormats, forwardedCallerHeaders } from "../dialects/wire-format";
import { type ApiRequest, clientAbort } from "../http/api-request";
import { BufferedResponse } from "../http/buffered-response";
import { StreamedResponse } from "../http/streamed-response";
import { gatewayMetrics } from "../metrics/gateway-metrics";
import type { Candidate } from "../providers/candidate";
import { NodeBodyResponse } from "../providers/node-body-response";
import type { RoutingState } from "../routing/routing-state";
import { performanceKey } from "../routing/source-performance";
import { countPromptTokens } from "../usage/count-prompt";
import { loadedTokenizer } from "../usage/tokenizer";
import {
  claimFromBody,
  contentFromBody,
  isEventStream,
  rawContent,
  tapWholeStream,
} from "../usage/usage-from-body";
import { afterAnswer } from "./after-answer";
import { dispatchWithFailover } from "./dispatch-with-failover";
import { readUpstreamBody } from "./read-upstream-body";
import { RequestDigest } from "./request-receipt";
import { RequestSettlement, type SettlementServices } from "./request-settlement";
import type { ReservedRequest } from "./reserved-request";
import { relayStream } from "./stream-relay";

/** What serving a held request reads: what settling reads, and the routing state its attempts report to. */
export interface ServingServices extends SettlementServices {
  routing: RoutingState;
}

/** Each source's exchange, made when first asked for (its body, its stream), once per request. */
function exchangesOf(reserved: ReservedRequest): (candidate: Candidate) => Exchange {
  const made = new Map<Candidate, Exchange>();
  return (candidate) => {
    let exchange = made.get(candidate);
    if (!exchange) {
      exchange = createExchange({
        request: reserved.inference,
        upstream: candidate.dialect,
        upstreamModelId: candidate.upstreamModelId,
        sourceName: candidate.route === "centralized" ? candidate.providerId : undefined,
        outputLimit: reserved.reservation.maxOutputTokens,
        target: (reserved.modelOf?.(candidate) ?? reserved.model).capabilities,
      });
      made.set(candidate, exchange);
    }
    return exchange;
  };
}

function proxyHeaders(
  request: ReservedRequest,
  candidate: Candidate,
  balance: bigint,
): Record<string, string> {
  return {
    [callerFormats[request.inference.dialect].requestIdHeader]: request.requestId,
    "x-balance-remaining": balance.toString(),
    "x-pod-route": candidate.route,
    "x-pod-provider-id": candidate.providerId,
    "x-should-retry": "false",
  };
}

/**
 * Serves a held request: dispatches it to its sources in turn (each attempt reported to health
 * and metrics), then answers in one of three shapes (a relayed stream, a stream read whole, a
 * whole reply), with the exchange doing the wire work and the settlement the billing.
 */
export async function serveReserved(
  app: ServingServices,
  request: ApiRequest,
  reserved: ReservedRequest,
): Promise<Response> {
  const forwardHeaders = forwardedCallerHeaders(request.headers);
  const { health, performance: measured } = app.routing;
  const exchangeFor = exchangesOf(reserved);
  const keyOf = (candidate: Candidate) =>
    performanceKey(candidate.providerId, (reserved.modelOf?.(candidate) ?? reserved.model).id);
  let dispatchedAt = 0;
  let agentTokens: Record<string, number> | undefined;
  let agentAttestation: HostAttestation | undefined;
  // A marketplace job is metered with the tokenizer, and a translated Anthropic stream opens
  // with the prompt's count: start loading it while the upstream works.
  if (
    reserved.candidates.some(
      (candidate) => candidate.route === "marketplace" || exchangeFor(candidate).streamNeedsPromptCount,
    )
  )
    loadedTokenizer();
  const requestDigest = new RequestDigest(reserved.inference.rawBody);
  const dispatched = dispatchWithFailover(reserved.candidates, {
    onAgentTokens: (tokens) => {
      agentTokens = tokens;
    },
    onAgentAttestation: (attestation) => {
      agentAttestation = attestation;
    },
    signal: clientAbort(request),
    forwardHeaders,
    headersTimeoutMs: app.env.UPSTREAM_TIMEOUT_MS,
    buildBody: (candidate) => exchangeFor(candidate).upstreamBody(),
    onAttemptFailed: (candidate, _reason, elapsedMs) => {
      health.recordFailure(candidate.providerId, elapsedMs);
      measured.record(keyOf(candidate), {
        outputTokens: 0,
        durationMs: elapsedMs,
        ok: false,
        error: "attempt_failed",
      });
      gatewayMetrics.upstreamErrors.inc({ provider: candidate.providerId, kind: "attempt_failed" });
      gatewayMetrics.upstreamLatency.observe(
        { provider: candidate.providerId, result: "error" },
        elapsedMs / 1000,
      );
    },
    onAttemptSucceeded: (candidate, elapsedMs) => {
      dispatchedAt = performance.now() - elapsedMs;
      afterAnswer(() => {
        health.recordSuccess(candidate.providerId, elapsedMs);
        gatewayMetrics.upstreamLatency.observe(
          { provider: candidate.providerId, result: "ok" },
          elapsedMs / 1000,
        );
      });
    },
  });
  if (app.receipts) requestDigest.soon();
  const success = await dispatched;
  const { candidate, response } = success;
  const { inference } = reserved;
  const exchange = exchangeFor(candidate);
  let firstChunkMs: number | undefined;
  const keeper = reserved.keeper ? answerKeeper(reserved, candidate) : undefined;
  const settlement = new RequestSettlement(app, reserved, {
    candidate,
    forwardedBody: success.body,
    agentTokens: () => agentTokens,
    agentAttestation: () => agentAttestation,
    requestDigest,
    // What the source did, measured here on real traffic (a client's own stall or exit says nothing of it).
    onSettled: (usage, outcome, charged) => {
      if (outcome === "completed") keeper?.settled(charged);
      if (outcome === "client_aborted" || outcome === "client_stalled") return;
      measured.record(keyOf(candidate), {
        ...(firstChunkMs === undefined ? {} : { ttftMs: firstChunkMs }),
        outputTokens: usage.outputTokens,
        durationMs: performance.now() - dispatchedAt,
        ok: outcome === "completed",
        ...(outcome === "completed" ? {} : { error: outcome }),
      });
    },
  });

  const contentType = response.headers.get("content-type") ?? "application/json";
  const upstreamBody = response instanceof NodeBodyResponse ? response.source : response.body;
  if (inference.stream && upstreamBody && contentType.includes("text/event-stream")) {
    const translate = exchange.streamTranslator(
      exchange.streamNeedsPromptCount ? await countPromptTokens(success.body) : undefined,
    );
    const chunks = relayStream({
      ...settlement.streamHooks(),
      upstream: upstreamBody,
      onFirstChunk: () => {
        firstChunkMs = performance.now() - dispatchedAt;
      },
      ...(keeper ? { onUpstreamChunk: keeper.gather } : {}),
      upstreamDialect: candidate.dialect,
      callerDialect: inference.dialect,
      suppressInjectedUsage: exchange.dropsInjectedUsage,
      ...(translate ? { translate } : {}),
      abortUpstream: success.abort,
      idleTimeoutMs: app.env.UPSTREAM_TIMEOUT_MS,
      writeTimeoutMs: app.env.STREAM_WRITE_TIMEOUT_MS,
      ...(candidate.route === "marketplace"
        ? { outputLimit: reserved.reservation.maxOutputTokens * inference.choices }
        : {}),
    });

    return new StreamedResponse(settlement.receipted(chunks), {
      status: 200,
      headers: {
        "content-type": translate ? "text/event-stream" : contentType,
        "cache-control": "no-cache",
        ...proxyHeaders(reserved, candidate, reserved.reservation.availableAfter),
      },
    });
  }

  const text = await readUpstreamBody(response, {
    timeoutMs: app.env.UPSTREAM_TIMEOUT_MS,
    maxBytes: app.env.MAX_UPSTREAM_BODY_BYTES,
    abort: success.abort,
  });
  // An upstream that streams to a call that asked for one piece: read as the stream it is.
  if (!inference.stream && isEventStream(contentType, text)) {
    keeper?.streamed(text);
    const tap = tapWholeStream(candidate.dialect, text);
    const metering = settlement.meterInput(tap.claim, () => tap.content);
    let body: string;
    try {
      body = exchange.callerReplyFromStream(text);
    } catch (error) {
      await settlement.settle(metering, "upstream_error");
      throw error;
    }
    settlement.answered(body);
    const settled = await settlement.settle(metering, "completed");
    return new BufferedResponse(body, {
      status: response.status,
      headers: {
        "content-type": "application/json",
        ...proxyHeaders(reserved, candidate, settled.availableAfter),
        ...settlement.receiptHeaders(),
        "x-pod-cost-microunits": settled.charged.toString(),
      },
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const reply = exchange.callerReply(text, parsed, contentType);
  if (response.status === 200 && parsed !== undefined) keeper?.whole(text);
  const claim = claimFromBody(candidate.dialect, parsed);
  settlement.answered(reply.body);
  const settled = await settlement.settle(
    settlement.meterInput(claim, () =>
      parsed === undefined ? rawContent(text) : contentFromBody(candidate.dialect, parsed),
    ),
    "completed",
  );
  return new BufferedResponse(reply.body, {
    status: response.status,
    headers: {
      "content-type": reply.contentType,
      ...proxyHeaders(reserved, candidate, settled.availableAfter),
      ...settlement.receiptHeaders(),
      // Known only once usage is in, so streams report it in GET /proxy/<token>/transactions instead.
      "x-pod-cost-microunits": settled.charged.toString(),
    },
  });
}

/**
 * What a miss that asked for the response cache hands it: the reply in the source's format (a
 * stream gathered chunk by chunk, at most the entry size, and read into the reply it adds up
 * to), kept once the request settled as completed, with what it was charged.
 */
function answerKeeper(reserved: ReservedRequest, candidate: Candidate) {
  const keeper = reserved.keeper;
  if (!keeper) return undefined;
  const model = (reserved.modelOf?.(candidate) ?? reserved.model).id;
  let body: string | undefined;
  const chunks: Uint8Array[] = [];
  let gathered = 0;
  const fromStream = (text: string): string | undefined => {
    try {
      return JSON.stringify(translateStreamedResponse(candidate.dialect, candidate.dialect, text, model));
    } catch {
      return undefined;
    }
  };
  return {
    whole: (text: string) => {
      body = text;
    },
    streamed: (text: string) => {
      body = fromStream(text);
    },
    gather: (chunk: Uint8Array) => {
      gathered += chunk.byteLength;
      // Past the entry size the stream is not kept: what was gathered goes at once.
      if (gathered > keeper.maxBytes) chunks.length = 0;
      else chunks.push(chunk);
    },
    settled: (charged: bigint) => {
      if (gathered > keeper.maxBytes) return;
      if (chunks.length > 0) body = fromStream(Buffer.concat(chunks).toString("utf8"));
      if (body === undefined) return;
      keeper.keep({
        dialect: candidate.dialect,
        body,
        cost: charged.toString(),
        provider: candidate.providerId,
        model,
      });
    },
  };
}
