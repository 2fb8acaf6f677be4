import type { BalanceWatchServices } from "../balance-watch/balance-watch-services";
import type { CatalogModel } from "../catalog/models";
import {
  createStreamTranslator,
  translateRequest,
  translateResponse,
  translateResponseToResponsesStream,
  translateStreamedResponse,
} from "../dialects/translate";
import type { UsageClaim } from "../dialects/usage/usage-claim";
import {
  callerFormats,
  forwardedCallerHeaders,
  type OutputLimitField,
  outputLimitFields,
  upstreamFormats,
} from "../dialects/wire-format";
import { GatewayError } from "../errors/gateway-error";
import type { ApiRequest } from "../http/api-request";
import { BufferedResponse } from "../http/buffered-response";
import { StreamedResponse } from "../http/streamed-response";
import type { KeyServices } from "../keys/key-services";
import type { LedgerServices } from "../ledger/ledger-services";
import { gatewayMetrics } from "../metrics/gateway-metrics";
import type { Candidate } from "../providers/candidate";
import { NodeBodyResponse } from "../providers/node-body-response";
import type { RoutingState } from "../routing/routing-state";
import type { Services } from "../services";
import { recordFindings } from "../trust/record-findings";
import type { TrustServices } from "../trust/trust-services";
import { countPromptTokens } from "../usage/count-prompt";
import { estimateRunningUsage, type MeterInput, meterUsage, tokenizerFamilyOf } from "../usage/meter-usage";
import type { RelayedContent } from "../usage/relayed-content";
import type { StreamUsageTap } from "../usage/stream-usage-tap";
import { loadedTokenizer } from "../usage/tokenizer";
import {
  claimFromBody,
  contentFromBody,
  isEventStream,
  rawContent,
  tapWholeStream,
} from "../usage/usage-from-body";
import { dispatchWithFailover } from "./dispatch-with-failover";
import type { InferenceRequest } from "./inference-request";
import { runningCountJournal } from "./journal-running-count";
import { readUpstreamBody } from "./read-upstream-body";
import type { Reservation } from "./reserve";
import { type RequestOutcome, settleRequest } from "./settle-request";
import { relayStream } from "./stream-relay";

export interface ReservedRequest {
  requestId: string;
  accountId: bigint;
  inference: InferenceRequest;
  model: CatalogModel;
  candidates: Candidate[];
  reservation: Reservation;
  /** The prompt tokens the hold priced: the most input the meter ever bills. */
  maxInputTokens: number;
  /** Told which source served, once the request is settled (canaries follow marketplace jobs). */
  onServed?(candidate: Candidate): void;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The one field a source honours (its format's rule); the caller's own field counts when it speaks the source's format. */
function limitFieldFor(request: ReservedRequest, candidate: Candidate): OutputLimitField {
  const { inference } = request;
  const callerField =
    inference.dialect === candidate.dialect && inference.maxTokens !== undefined
      ? inference.maxTokensField
      : undefined;
  const isOpenaiItself = candidate.route === "centralized" && candidate.providerId === "openai";
  return upstreamFormats[candidate.dialect].outputLimitField(callerField, isOpenaiItself);
}

/** Leaves exactly one output limit in the body: the one the hold covers, in the honoured field. */
function setOutputLimit(body: Record<string, unknown>, field: OutputLimitField, limit: number): void {
  for (const name of outputLimitFields) delete body[name];
  body[field] = limit;
}

/**
 * The upstream body. Same dialect: the caller's bytes unchanged unless the model id, limit
 * or usage option must change. Other dialect: translated with the upstream's model id. In
 * both, exactly one output limit is forwarded, and it is the one the hold covers.
 */
function buildUpstreamBody(request: ReservedRequest, candidate: Candidate): string {
  const { inference, reservation } = request;
  const limit = reservation.maxOutputTokens;
  const field = limitFieldFor(request, candidate);
  if (candidate.dialect !== inference.dialect) {
    const source: Record<string, unknown> = { ...inference.body };
    setOutputLimit(source, inference.maxTokensField, limit);
    const translated = translateRequest(
      inference.dialect,
      candidate.dialect,
      source,
      candidate.upstreamModelId,
      request.model.capabilities,
    );
    setOutputLimit(translated, field, limit);
    return JSON.stringify(translated);
  }
  const injectUsage =
    callerFormats[inference.dialect].streamUsageOnRequest && inference.stream && !inference.includeUsage;
  const other = field === "max_tokens" ? "max_completion_tokens" : "max_tokens";
  const limitAsSent = inference.body[field] === limit && inference.body[other] === undefined;
  if (candidate.upstreamModelId === inference.model && limitAsSent && !injectUsage) return inference.rawBody;
  const body: Record<string, unknown> = { ...inference.body, model: candidate.upstreamModelId };
  setOutputLimit(body, field, limit);
  if (injectUsage) {
    const options = isRecord(body.stream_options) ? body.stream_options : {};
    body.stream_options = { ...options, include_usage: true };
  }
  return JSON.stringify(body);
}

/** A stream translated for a format that opens with the prompt's count (Anthropic's message_start). */
function countsPromptForCaller(reserved: ReservedRequest, candidate: Candidate): boolean {
  const { inference } = reserved;
  return (
    inference.stream &&
    candidate.dialect !== inference.dialect &&
    callerFormats[inference.dialect].streamOpensWithPromptCount
  );
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
 * A non-streamed body in the caller's dialect, reporting the model the caller asked for.
 * Same dialect and same model id: the upstream's bytes, untouched.
 */
function callerBody(reserved: ReservedRequest, candidate: Candidate, text: string, parsed: unknown): string {
  const { inference } = reserved;
  if (candidate.dialect !== inference.dialect) {
    if (!isRecord(parsed)) {
      throw new GatewayError("upstream_error", "upstream error: the provider's response is not valid JSON");
    }
    // A Responses client that asked to stream reads events, whatever the source sent.
    if (inference.stream && callerFormats[inference.dialect].streamsWholeTranslatedReply)
      return translateResponseToResponsesStream(candidate.dialect, parsed, inference.body);
    return JSON.stringify(
      translateResponse(candidate.dialect, inference.dialect, parsed, inference.model, inference.body),
    );
  }
  if (candidate.upstreamModelId === inference.model || !isRecord(parsed)) return text;
  return JSON.stringify(translateResponse(candidate.dialect, inference.dialect, parsed, inference.model));
}

/** What serving a held request reads: the ledger, the routing state, and trust for what the meter finds. */
export interface ServingServices
  extends Services,
    LedgerServices,
    TrustServices,
    KeyServices,
    BalanceWatchServices {
  routing: RoutingState;
}

export async function serveReserved(
  app: ServingServices,
  request: ApiRequest,
  reserved: ReservedRequest,
): Promise<Response> {
  const forwardHeaders = forwardedCallerHeaders(request.headers);
  const { health } = app.routing;
  let agentTokens: Record<string, number> | undefined;
  // A marketplace job is metered with the tokenizer, and a translated Anthropic stream opens
  // with the prompt's count: start loading it while the upstream works.
  if (
    reserved.candidates.some(
      (candidate) => candidate.route === "marketplace" || countsPromptForCaller(reserved, candidate),
    )
  )
    loadedTokenizer();
  const success = await dispatchWithFailover(reserved.candidates, {
    onAgentTokens: (tokens) => {
      agentTokens = tokens;
    },
    signal: request.signal,
    forwardHeaders,
    headersTimeoutMs: app.env.UPSTREAM_TIMEOUT_MS,
    buildBody: (candidate) => buildUpstreamBody(reserved, candidate),
    onAttemptFailed: (candidate, _reason, elapsedMs) => {
      health.recordFailure(candidate.providerId, elapsedMs);
      gatewayMetrics.upstreamErrors.inc({ provider: candidate.providerId, kind: "attempt_failed" });
      gatewayMetrics.upstreamLatency.observe(
        { provider: candidate.providerId, result: "error" },
        elapsedMs / 1000,
      );
    },
    onAttemptSucceeded: (candidate, elapsedMs) => {
      health.recordSuccess(candidate.providerId, elapsedMs);
      gatewayMetrics.upstreamLatency.observe(
        { provider: candidate.providerId, result: "ok" },
        elapsedMs / 1000,
      );
    },
  });
  const { candidate, response } = success;
  const { inference } = reserved;
  const settlement = {
    requestId: reserved.requestId,
    accountId: reserved.accountId,
    hold: reserved.reservation.hold,
    candidate,
    model: reserved.model.id,
  };
  const meterInput = (claim: UsageClaim, content: () => RelayedContent): MeterInput => ({
    family: tokenizerFamilyOf(reserved.model),
    trusted: candidate.route !== "marketplace",
    forwardedBody: success.body,
    maxInputTokens: reserved.maxInputTokens,
    maxOutputTokens: reserved.reservation.maxOutputTokens * inference.choices,
    claim,
    content,
  });
  const settle = async (metering: MeterInput, outcome: RequestOutcome) => {
    const metered = await meterUsage({ ...metering, agentTokens });
    await recordFindings(app, candidate, reserved.requestId, metered.findings, agentTokens);
    const settled = await settleRequest(app, { ...settlement, usage: metered.usage, outcome });
    reserved.onServed?.(candidate);
    return settled;
  };

  const contentType = response.headers.get("content-type") ?? "application/json";
  const upstreamBody = response instanceof NodeBodyResponse ? response.nodeBody : response.body;
  if (inference.stream && upstreamBody && contentType.includes("text/event-stream")) {
    const sameDialect = candidate.dialect === inference.dialect;
    // Same dialect and model: bytes pass through. Otherwise the translator re-encodes (or,
    // same dialect, only rewrites the model and drops the usage chunk the caller did not ask for).
    const translate =
      sameDialect && candidate.upstreamModelId === inference.model
        ? undefined
        : createStreamTranslator(candidate.dialect, inference.dialect, {
            model: inference.model,
            includeUsage: inference.includeUsage,
            callerRequest: inference.body,
            ...(countsPromptForCaller(reserved, candidate)
              ? { inputTokens: await countPromptTokens(success.body) }
              : {}),
          });
    // A crash mid-stream bills the last running count journaled, not nothing.
    const runningCount = runningCountJournal(app, settlement);
    const chunks = relayStream({
      ...(runningCount
        ? {
            onProgress: (tap: StreamUsageTap) =>
              runningCount.progress(estimateRunningUsage(meterInput(tap.claim, () => tap.content))),
          }
        : {}),
      upstream: upstreamBody,
      upstreamDialect: candidate.dialect,
      callerDialect: inference.dialect,
      suppressInjectedUsage:
        translate === undefined &&
        callerFormats[inference.dialect].streamUsageOnRequest &&
        !inference.includeUsage,
      ...(translate ? { translate } : {}),
      abortUpstream: success.abort,
      idleTimeoutMs: app.env.UPSTREAM_TIMEOUT_MS,
      writeTimeoutMs: app.env.STREAM_WRITE_TIMEOUT_MS,
      ...(candidate.route === "marketplace"
        ? { outputLimit: reserved.reservation.maxOutputTokens * inference.choices }
        : {}),
      onEnd: async (tap, outcome) => {
        await settle(
          meterInput(tap.claim, () => tap.content),
          outcome,
        );
        runningCount?.settled();
      },
    });

    return new StreamedResponse(chunks, {
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
    const tap = tapWholeStream(candidate.dialect, text);
    const metering = meterInput(tap.claim, () => tap.content);
    let body: string;
    try {
      body = JSON.stringify(
        translateStreamedResponse(
          candidate.dialect,
          inference.dialect,
          text,
          inference.model,
          inference.body,
        ),
      );
    } catch (error) {
      await settle(metering, "upstream_error");
      throw error;
    }
    const settled = await settle(metering, "completed");
    return new BufferedResponse(body, {
      status: response.status,
      headers: {
        "content-type": "application/json",
        ...proxyHeaders(reserved, candidate, settled.availableAfter),
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
  const body = callerBody(reserved, candidate, text, parsed);
  const claim = claimFromBody(candidate.dialect, parsed);
  const settled = await settle(
    meterInput(claim, () =>
      parsed === undefined ? rawContent(text) : contentFromBody(candidate.dialect, parsed),
    ),
    "completed",
  );
  return new BufferedResponse(body, {
    status: response.status,
    headers: {
      "content-type":
        body === text
          ? contentType
          : inference.stream && callerFormats[inference.dialect].streamsWholeTranslatedReply
            ? "text/event-stream"
            : "application/json",
      ...proxyHeaders(reserved, candidate, settled.availableAfter),
      // Known only once usage is in, so streams report it in GET /proxy/<token>/transactions instead.
      "x-pod-cost-microunits": settled.charged.toString(),
    },
  });
}
