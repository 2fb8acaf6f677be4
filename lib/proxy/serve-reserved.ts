import type { AppContext } from "../app-context";
import type { CatalogModel } from "../catalog/models";
import type { Usage } from "../pricing/cost";
import type { Candidate } from "../routing/candidate";
import { usageFromResponseBody } from "../usage/usage-from-body";
import { dispatchWithFailover } from "./dispatch-with-failover";
import { approximatePromptTokens, type InferenceRequest } from "./inference-request";
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
}

const forwardedHeaderNames = ["anthropic-version", "anthropic-beta"];

/** The upstream body: the caller's bytes unchanged unless the model id, limit or usage option must change. */
export function buildUpstreamBody(request: ReservedRequest, candidate: Candidate): string {
  const { inference, reservation } = request;
  const injectUsage = inference.dialect === "openai" && inference.stream && !inference.includeUsage;
  const bounded = reservation.boundedMaxTokens;
  if (candidate.upstreamModelId === inference.model && bounded === undefined && !injectUsage)
    return inference.rawBody;
  const body: Record<string, unknown> = { ...inference.body, model: candidate.upstreamModelId };
  if (bounded !== undefined) body[inference.maxTokensField] = bounded;
  if (injectUsage) {
    const options =
      typeof body.stream_options === "object" && body.stream_options !== null ? body.stream_options : {};
    body.stream_options = { ...options, include_usage: true };
  }
  return JSON.stringify(body);
}

function proxyHeaders(
  request: ReservedRequest,
  candidate: Candidate,
  balance: bigint,
): Record<string, string> {
  return {
    [request.inference.dialect === "anthropic" ? "request-id" : "x-request-id"]: request.requestId,
    "x-balance-remaining": balance.toString(),
    "x-pod-route": candidate.route,
    "x-pod-provider-id": candidate.providerId,
    "x-should-retry": "false",
  };
}

/** Usage when the upstream never reported it (an aborted stream): the prompt estimate and the deltas seen. */
function estimatedUsage(inference: InferenceRequest, outputDeltas: number): Usage {
  return {
    inputTokens: approximatePromptTokens(inference),
    outputTokens: outputDeltas,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  };
}

export async function serveReserved(
  app: AppContext,
  request: Request,
  reserved: ReservedRequest,
): Promise<Response> {
  const forwardHeaders: Record<string, string> = {};
  for (const name of forwardedHeaderNames) {
    const value = request.headers.get(name);
    if (value) forwardHeaders[name] = value;
  }
  const success = await dispatchWithFailover(reserved.candidates, {
    signal: request.signal,
    forwardHeaders,
    headersTimeoutMs: app.env.UPSTREAM_TIMEOUT_MS,
    buildBody: (candidate) => buildUpstreamBody(reserved, candidate),
  });
  const { candidate, response } = success;
  const settle = (usage: Usage, outcome: RequestOutcome) =>
    settleRequest(app, {
      requestId: reserved.requestId,
      accountId: reserved.accountId,
      holdId: reserved.reservation.holdId,
      candidate,
      model: reserved.model.id,
      usage,
      outcome,
    });

  const contentType = response.headers.get("content-type") ?? "application/json";
  if (reserved.inference.stream && response.body && contentType.includes("text/event-stream")) {
    const body = relayStream({
      upstream: response.body,
      upstreamDialect: candidate.dialect,
      callerDialect: reserved.inference.dialect,
      suppressInjectedUsage: reserved.inference.dialect === "openai" && !reserved.inference.includeUsage,
      abortUpstream: success.abort,
      onEnd: async (tap, outcome) => {
        await settle(tap.usage ?? estimatedUsage(reserved.inference, tap.deltaCount), outcome);
      },
    });
    return new Response(body, {
      status: 200,
      headers: {
        "content-type": contentType,
        "cache-control": "no-cache",
        ...proxyHeaders(reserved, candidate, reserved.reservation.availableAfter),
      },
    });
  }

  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const usage = usageFromResponseBody(candidate.dialect, parsed) ?? estimatedUsage(reserved.inference, 0);
  const settled = await settle(usage, "completed");
  return new Response(text, {
    status: response.status,
    headers: { "content-type": contentType, ...proxyHeaders(reserved, candidate, settled.availableAfter) },
  });
}
